import { describe, expect, it } from 'vitest';
import {
  canMove,
  decideCancel,
  decideFinish,
  INTERRUPTED,
  MOVES,
  type RunEnding,
  SCAN_STATUSES,
  type ScanMove,
} from './status-machine.js';

describe('scan status machine', () => {
  const legal: Array<[string, ScanMove, string]> = [
    ['queued', 'start', 'running'],
    ['running', 'complete', 'completed'],
    ['queued', 'fail', 'failed'],
    ['running', 'fail', 'failed'],
    ['queued', 'cancel', 'cancelled'],
    ['running', 'cancel', 'cancelled'],
    ['running', 'requeue', 'queued'],
  ];

  it.each(legal)('allows %s --%s--> %s', (from, move, to) => {
    expect(canMove(from as never, move)).toBe(true);
    expect(MOVES[move].to).toBe(to);
  });

  it('allows no other move', () => {
    const allowed = new Set(legal.map(([from, move]) => `${from}:${move}`));
    for (const status of SCAN_STATUSES) {
      for (const move of Object.keys(MOVES) as ScanMove[]) {
        expect(canMove(status, move), `${status} ${move}`).toBe(allowed.has(`${status}:${move}`));
      }
    }
  });

  it('never leaves a terminal status', () => {
    for (const status of ['completed', 'failed', 'cancelled'] as const) {
      for (const move of Object.keys(MOVES) as ScanMove[]) {
        expect(canMove(status, move)).toBe(false);
      }
    }
  });

  it('records the event of the specification with each move', () => {
    expect(MOVES.start.event).toBe('scan.started');
    expect(MOVES.complete.event).toBe('scan.completed');
    expect(MOVES.fail.event).toBe('scan.failed');
    expect(MOVES.cancel.event).toBe('scan.cancelled');
    expect(MOVES.requeue.event).toBeNull();
  });

  it.each([
    ['completed', 'SCAN_ALREADY_COMPLETED'],
    ['cancelled', 'SCAN_ALREADY_CANCELLED'],
    ['failed', 'SCAN_ALREADY_FAILED'],
  ] as const)('answers a cancel of a %s scan with %s', (status, code) => {
    expect(decideCancel(status)).toEqual({ ok: false, code });
  });

  it.each(['queued', 'running'] as const)('accepts a cancel of a %s scan', (status) => {
    expect(decideCancel(status)).toEqual({ ok: true });
  });
});

describe('decideFinish', () => {
  const failed: RunEnding = { kind: 'failed', error: { code: 'SCAN_TIMEOUT', message: 'late' } };

  it('moves a held running scan as its run ended', () => {
    const row = { status: 'running', leaseHeld: true } as const;
    expect(decideFinish(row, { kind: 'completed' })).toEqual({ kind: 'complete' });
    expect(decideFinish(row, failed)).toEqual({ kind: 'fail', error: failed.error });
  });

  it('fails a held running scan whose run stopped as cancelled with the interrupted error', () => {
    expect(decideFinish({ status: 'running', leaseHeld: true }, { kind: 'cancelled' })).toEqual({
      kind: 'fail',
      error: INTERRUPTED,
    });
  });

  it.each<RunEnding>([{ kind: 'completed' }, { kind: 'cancelled' }, failed])(
    'keeps a cancelled scan cancelled whatever the run did (%o)',
    (ending) => {
      expect(decideFinish({ status: 'cancelled', leaseHeld: true }, ending)).toEqual({
        kind: 'keep-ended',
      });
    },
  );

  it.each<RunEnding>([{ kind: 'completed' }, { kind: 'cancelled' }, failed])(
    'keeps a scan failed while the worker held it (a suspended tenant) failed (%o)',
    (ending) => {
      expect(decideFinish({ status: 'failed', leaseHeld: true }, ending)).toEqual({
        kind: 'keep-ended',
      });
    },
  );

  it('gives up a scan it no longer holds or that is not running', () => {
    expect(decideFinish(null, { kind: 'completed' }).kind).toBe('lost');
    expect(decideFinish({ status: 'running', leaseHeld: false }, { kind: 'completed' }).kind).toBe(
      'lost',
    );
    for (const status of ['queued', 'completed'] as const) {
      expect(decideFinish({ status, leaseHeld: true }, { kind: 'completed' }).kind).toBe('lost');
    }
  });
});
