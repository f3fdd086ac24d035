/**
 * What changed with a scan (results:read, issue 23): GET /api/v1/scans/:scanId/diff. The issues
 * of an ended scan's findings against those of a base scan of the same target and engine: by
 * default the latest completed one created before it, or `?base=<scanId>` (an ended scan of the
 * tenant, same target and engine, else 400 INVALID_FIELD_VALUE for `base`). `new`: only in the
 * scan, never seen up to the base; `reopened`: only in the scan, seen before the base; `fixed`:
 * only in the base; `unchanged`: in both. Without a base every issue of the scan is new.
 */
import { ApiError } from '../../domain/errors.js';
import { isTerminal } from '../../domain/scans/status-machine.js';
import type { Clock } from '../ports/common.js';
import type { IssueStore } from '../ports/issues.js';
import type { ScanStore } from '../ports/scans.js';
import { toIssueView } from './read-issues.js';

export async function diffScan(
  deps: { readonly issues: IssueStore; readonly scans: ScanStore; readonly clock: Clock },
  tenantId: string,
  scanId: string,
  baseId: string | undefined,
) {
  const scan = await deps.scans.get(tenantId, scanId);
  if (scan === null) {
    throw new ApiError('SCAN_NOT_FOUND');
  }
  if (!isTerminal(scan.status)) {
    throw new ApiError('RESULTS_NOT_READY', { status: scan.status });
  }
  const chosen =
    baseId ??
    (await deps.issues.previousCompletedScan(tenantId, scan.target, scan.scanType, scan.createdAt));
  let base: { id: string; completedAt: Date } | null = null;
  if (chosen !== null) {
    const record = await deps.scans.get(tenantId, chosen);
    const problem =
      record === null
        ? 'not a scan of this tenant'
        : record.target !== scan.target || record.scanType !== scan.scanType
          ? 'not a scan of the same target and engine'
          : !isTerminal(record.status)
            ? 'the scan has not ended'
            : null;
    if (problem !== null || record === null) {
      throw new ApiError('INVALID_FIELD_VALUE', { field: 'base', reason: problem ?? '' });
    }
    base = { id: record.id, completedAt: record.completedAt ?? record.createdAt };
  }
  const diff = await deps.issues.diff(tenantId, { id: scan.id, target: scan.target }, base);
  const now = deps.clock.now();
  const views = (list: (typeof diff)['new']) => list.map((issue) => toIssueView(issue, now));
  return {
    scanId: scan.id,
    baseScanId: base?.id ?? null,
    new: views(diff.new),
    fixed: views(diff.fixed),
    reopened: views(diff.reopened),
    unchanged: views(diff.unchanged),
  };
}
