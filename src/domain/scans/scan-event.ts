/**
 * The body of a scan event, exactly as the specification's Events section gives it:
 * `{ event, timestamp, tenantId, data: { scanId, scanType, name, target, status, progress,
 * resultCount, durationMs, createdAt, completedAt } }`; `scan.failed` adds `data.error`
 * (decisions.md). Built once, when the move is recorded, and stored in the outbox, so every
 * delivery attempt sends the same bytes.
 */
import { durationMs, type ScanRecord } from './scan.js';
import type { ScanEventName } from './status-machine.js';

export interface ScanEventData {
  readonly scanId: string;
  readonly scanType: string;
  readonly name: string;
  readonly target: string;
  readonly status: string;
  readonly progress: number;
  readonly resultCount: number;
  readonly durationMs: number;
  readonly createdAt: string;
  readonly completedAt: string | null;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface ScanEventBody {
  readonly event: ScanEventName;
  readonly timestamp: string;
  readonly tenantId: string;
  readonly data: ScanEventData;
}

/** The event body for a scan as it is right after the move; `at` is the moment of the move. */
export function buildScanEvent(event: ScanEventName, scan: ScanRecord, at: Date): ScanEventBody {
  const data: ScanEventData = {
    scanId: scan.id,
    scanType: scan.scanType,
    name: scan.name,
    target: scan.target,
    status: scan.status,
    progress: scan.progress,
    resultCount: scan.resultCount,
    durationMs: durationMs(scan),
    createdAt: scan.createdAt.toISOString(),
    completedAt: scan.completedAt?.toISOString() ?? null,
    ...(event === 'scan.failed' && scan.error !== null ? { error: { ...scan.error } } : {}),
  };
  return { event, timestamp: at.toISOString(), tenantId: scan.tenantId, data };
}
