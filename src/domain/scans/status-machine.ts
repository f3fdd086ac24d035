/**
 * The scan status machine: every status move a scan can make, from which statuses, and the event
 * it records. The repositories apply a move only through `MOVES` (their UPDATE statements take the
 * `from` list as their WHERE clause), so no other code decides what a status may become.
 */

export const SCAN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export function isScanStatus(value: unknown): value is ScanStatus {
  return typeof value === 'string' && (SCAN_STATUSES as readonly string[]).includes(value);
}

export const TERMINAL_STATUSES: readonly ScanStatus[] = ['completed', 'failed', 'cancelled'];

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
