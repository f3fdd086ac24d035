import { describe, expect, it } from 'vitest';
import type { ScanRecord } from './scan.js';
import { buildScanEvent } from './scan-event.js';

const base: ScanRecord = {
  id: '11111111-1111-4111-8111-111111111111',
  tenantId: '22222222-2222-4222-8222-222222222222',
  apiKeyId: null,
  scanType: 'nmap',
  name: 'weekly',
  target: '203.0.113.7',
  targetType: 'ip',
  priority: 'normal',
  status: 'completed',
  progress: 100,
  tags: [],
  options: {},
  config: {},
  timeoutSeconds: 3600,
  assetId: null,
  callbackUrl: null,
  templateId: null,
  parentScanId: null,
  resultCount: 3,
  findingsSummary: { critical: 0, high: 1, medium: 0, low: 0, info: 2 },
  riskScore: 20,
  error: null,
  attempts: 1,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  startedAt: new Date('2026-01-01T00:00:01.000Z'),
  completedAt: new Date('2026-01-01T00:00:04.500Z'),
};

describe('buildScanEvent', () => {
  it('carries exactly the data fields of the specification', () => {
    const body = buildScanEvent('scan.completed', base, new Date('2026-01-01T00:00:05.000Z'));
    expect(body).toEqual({
      event: 'scan.completed',
      timestamp: '2026-01-01T00:00:05.000Z',
      tenantId: base.tenantId,
      data: {
        scanId: base.id,
        scanType: 'nmap',
        name: 'weekly',
        target: '203.0.113.7',
        status: 'completed',
        progress: 100,
        resultCount: 3,
        durationMs: 3500,
        createdAt: '2026-01-01T00:00:00.000Z',
        completedAt: '2026-01-01T00:00:04.500Z',
      },
    });
  });

  it('adds error to scan.failed only', () => {
    const failed = {
      ...base,
      status: 'failed' as const,
      error: { code: 'ENGINE_ERROR', message: 'nmap exited with code 1' },
    };
    expect(buildScanEvent('scan.failed', failed, new Date()).data.error).toEqual(failed.error);
    expect(buildScanEvent('scan.cancelled', failed, new Date()).data).not.toHaveProperty('error');
  });

  it('reports durationMs 0 and completedAt null for a scan that has not ended', () => {
    const running = { ...base, status: 'running' as const, progress: 0, completedAt: null };
    const body = buildScanEvent('scan.started', running, new Date());
    expect(body.data.durationMs).toBe(0);
    expect(body.data.completedAt).toBeNull();
  });
});
