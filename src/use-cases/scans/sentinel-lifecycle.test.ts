import { describe, expect, it } from 'vitest';
import { parentEnd } from './sentinel-lifecycle.js';

describe('parentEnd', () => {
  const failed = { kind: 'failed', error: { code: 'SCAN_TIMEOUT', message: 'late' } } as const;

  it('keeps a cancelled parent cancelled whatever its children did', () => {
    expect(parentEnd('cancelled', { kind: 'completed' })).toEqual({ kind: 'keep-cancelled' });
    expect(parentEnd('cancelled', failed)).toEqual({ kind: 'keep-cancelled' });
  });

  it('completes a running parent when a child completed, failing it otherwise', () => {
    expect(parentEnd('running', { kind: 'completed' })).toEqual({
      kind: 'complete',
      startFirst: false,
    });
    expect(parentEnd('running', failed)).toEqual({ kind: 'fail', error: failed.error });
  });

  it('starts a parent whose start was missed before completing it', () => {
    expect(parentEnd('queued', { kind: 'completed' })).toEqual({
      kind: 'complete',
      startFirst: true,
    });
  });
});
