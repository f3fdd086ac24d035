/** GET /api/v1/scans/:scanId and GET /api/v1/scans. */
import { ApiError } from '../../domain/errors.js';
import type { ScanStatus } from '../../domain/scans/status-machine.js';
import type { Page, ScanStore } from '../ports.js';
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
  return toScanDetailView(scan);
}

/** The tenant's scans, newest first; `scanType` `all` lists every engine. */
export async function listScans(
  scans: ScanStore,
  tenantId: string,
  filter: { readonly scanType: string; readonly status: ScanStatus | undefined },
  page: Page,
): Promise<{ scans: ScanDetailView[]; pagination: Pagination }> {
  const found = await scans.list(
    tenantId,
    { scanType: filter.scanType === 'all' ? null : filter.scanType, status: filter.status ?? null },
    page,
  );
  return {
    scans: found.scans.map(toScanDetailView),
    pagination: pagination(page.page, page.limit, found.total),
  };
}
