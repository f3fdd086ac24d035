/**
 * The scan status machine: every status move a scan can make, from which statuses, and the event
 * it records. The repositories apply a move only through `MOVES` (their UPDATE statements take the
 * `from` list as their WHERE clause), so no other code decides what a status may become.
 */

import { formatErrorMessage } from '../errors.js';
import type { ScanError } from './scan.js';

export const SCAN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export const TERMINAL_STATUSES: readonly ScanStatus[] = ['completed', 'failed', 'cancelled'];

/** Statuses of a scan that has not ended (a worker may still run it). */
export const ACTIVE_STATUSES: readonly ScanStatus[] = ['queued', 'running'];

/** A new scan's status (creation is an insert, not a move). */
export const INITIAL_STATUS: ScanStatus = 'queued';

export function isTerminal(status: ScanStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export type ScanEventName = 'scan.started' | 'scan.completed' | 'scan.failed' | 'scan.cancelled';

export type ScanMove = 'start' | 'complete' | 'fail' | 'cancel' | 'requeue';

export interface MoveRule {
  readonly from: readonly ScanStatus[];
  readonly to: ScanStatus;
  /** The event written to the outbox with the move; null for the internal requeue. */
  readonly event: ScanEventName | null;
}

/**
 * The specification's "Scan status" table. Its open points, decided:
 * - `complete` comes from `running` only: a scan completes because an engine ran it.
 * - `fail` comes from `queued` or `running` (the table allows both): a queued scan fails when its
 *   lease-holder is lost after the retry, or when it can never start.
 * - `requeue` is internal: a running scan whose worker stopped answering (lease expired, one
 *   retry allowed) or that a stopping worker hands back goes back to `queued`. No event: the next
 *   `start` records `scan.started` again, and receivers are idempotent (spec, Delivery rule 3).
 */
export const MOVES: Readonly<Record<ScanMove, MoveRule>> = {
  start: { from: ['queued'], to: 'running', event: 'scan.started' },
  complete: { from: ['running'], to: 'completed', event: 'scan.completed' },
  fail: { from: ['queued', 'running'], to: 'failed', event: 'scan.failed' },
  cancel: { from: ['queued', 'running'], to: 'cancelled', event: 'scan.cancelled' },
  requeue: { from: ['running'], to: 'queued', event: null },
};

/** The 409 code a cancel of a scan in a terminal status answers with. */
export type CancelConflict =
  | 'SCAN_ALREADY_COMPLETED'
  | 'SCAN_ALREADY_CANCELLED'
  | 'SCAN_ALREADY_FAILED';

const CANCEL_CONFLICTS: Readonly<Record<string, CancelConflict>> = {
  completed: 'SCAN_ALREADY_COMPLETED',
  cancelled: 'SCAN_ALREADY_CANCELLED',
  failed: 'SCAN_ALREADY_FAILED',
};

/** How a worker's run of a scan ended. */
export type RunEnding =
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly error: ScanError }
  | { readonly kind: 'cancelled' };

/** What ending a run does to its scan row. */
export type FinishDecision =
  /** The move to make, with the error a failed scan records. */
  | { readonly kind: 'complete' }
  | { readonly kind: 'fail'; readonly error: ScanError }
  /**
   * Ended meanwhile by someone else while the worker held it (cancelled, or failed with
   * TENANT_SUSPENDED by the kill switch): the status stays, the findings so far are stored
   * (partial results) and the lease is let go.
   */
  | { readonly kind: 'keep-ended' }
  /** No longer this worker's scan (its lease went to another worker, or it is gone). */
  | { readonly kind: 'lost' };

/** The error of a running scan whose run stopped as cancelled without the scan being cancelled. */
export const INTERRUPTED: ScanError = {
  code: 'ENGINE_ERROR',
  message: 'The scan run was interrupted',
};

/**
 * The error of a running scan stopped by its tenant's suspension (the kill switch): the catalog's
 * code and message.
 */
export const SUSPENDED: ScanError = {
  code: 'TENANT_SUSPENDED',
  message: formatErrorMessage('TENANT_SUSPENDED'),
};

/**
 * Decides how a run's end lands on its scan, given the row as the worker finds it (locked): a
 * scan the worker still holds completes or fails as its run did; a cancelled one, or one failed
 * while the worker held it (a suspended tenant's), keeps its status and gets the partial
 * findings; anything else is not the worker's any more (a lost worker's scan is failed with its
 * lease let go, so it is not held).
 */
export function decideFinish(
  row: { readonly status: ScanStatus; readonly leaseHeld: boolean } | null,
  ending: RunEnding,
): FinishDecision {
  if (row === null || !row.leaseHeld) {
    return { kind: 'lost' };
  }
  if (row.status === 'cancelled' || row.status === 'failed') {
    return { kind: 'keep-ended' };
  }
  if (!canMove(row.status, 'complete')) {
    return { kind: 'lost' };
  }
  switch (ending.kind) {
    case 'completed':
      return { kind: 'complete' };
    case 'failed':
      return { kind: 'fail', error: ending.error };
    case 'cancelled':
      return { kind: 'fail', error: INTERRUPTED };
  }
}

/** Whether `move` may be applied to a scan in `status`. */
export function canMove(status: ScanStatus, move: ScanMove): boolean {
  return MOVES[move].from.includes(status);
}

/** Decides a cancel request: the move, or the 409 code of the specification. */
export function decideCancel(
  status: ScanStatus,
): { readonly ok: true } | { readonly ok: false; readonly code: CancelConflict } {
  if (canMove(status, 'cancel')) {
    return { ok: true };
  }
  const code = CANCEL_CONFLICTS[status];
  if (code === undefined) {
    throw new Error(`no cancel rule for status ${status}`);
  }
  return { ok: false, code };
}
