/** GET /api/v1/scans/:scanId and GET /api/v1/scans. */
import { ApiError } from '../../domain/errors.js';
import type { ScanStatus } from '../../domain/scans/status-machine.js';
import { runsAsChildScans } from '../../engines/registry.js';
import type { Page } from '../ports/common.js';
import type { ScanStore } from '../ports/scans.js';
import { type Pagination, pagination, type ScanDetailView, toScanDetailView } from './scan-view.js';

/** One scan of the tenant; a `scanType` other than the scan's engine is SCAN_NOT_FOUND. */
export async function getScan(
  scans: ScanStore,
  tenantId: string,
  id: string,
  scanType: string | undefined,
): Promise<ScanDetailView> {
  const scan = await scans.get(tenantId, id);
  if (scan === null || (scanType !== undefined && scanType !== scan.scanType)) {
    throw new ApiError('SCAN_NOT_FOUND');
  }
  const sentinel = runsAsChildScans(scan.scanType) ? await scans.sentinelRun(tenantId, id) : null;
  return toScanDetailView(scan, sentinel);
}

/**
 * The tenant's scans, newest first; `scanType` `all` lists every engine. Sentinel children are
 * left out unless `parentScanId` asks for one sentinel scan's children (then every engine is
 * listed unless `scanType` says otherwise).
 */
export async function listScans(
  scans: ScanStore,
  tenantId: string,
  filter: {
    readonly scanType: string | undefined;
    readonly status: ScanStatus | undefined;
    readonly parentScanId: string | undefined;
  },
  page: Page,
): Promise<{ scans: ScanDetailView[]; pagination: Pagination }> {
  const scanType = filter.scanType ?? (filter.parentScanId === undefined ? 'nmap' : 'all');
  const found = await scans.list(
    tenantId,
    {
      scanType: scanType === 'all' ? null : scanType,
      status: filter.status ?? null,
      parentScanId: filter.parentScanId?.toLowerCase() ?? null,
    },
    page,
  );
  return {
    scans: found.scans.map((scan) => toScanDetailView(scan)),
    pagination: pagination(page.page, page.limit, found.total),
  };
}
