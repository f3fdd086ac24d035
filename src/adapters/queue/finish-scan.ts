/**
 * Ends a scan a worker ran: stores its findings and the summary, and moves it to completed or
 * failed, in one transaction. A scan cancelled meanwhile keeps its status and gets the findings
 * collected so far (partial results); a scan whose lease went to another worker is left alone.
 */
import { type Kysely, sql } from 'kysely';
import type { FindingsSummary, FingerprintedFinding } from '../../domain/findings/finding.js';
import type { ScanError } from '../../domain/scans/scan.js';
import type { Database } from '../db/database.js';
import { insertFindings } from '../db/findings.repository.js';
import { moveScan } from '../db/scan-rows.js';

export type ScanEnding =
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly error: ScanError };

export interface ScanResults {
  readonly findings: readonly FingerprintedFinding[];
  readonly summary: FindingsSummary;
  readonly riskScore: number;
}

/** What happened: `finished` (moved), `kept-cancelled` (partial results stored), `lost`. */
export type FinishOutcome = 'finished' | 'kept-cancelled' | 'lost';

export async function finishScan(
  db: Kysely<Database>,
  workerId: string,
  scanId: string,
  ending: ScanEnding,
  results: ScanResults,
): Promise<FinishOutcome> {
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('scans')
      .select(['status', 'lease_owner', 'tenant_id', 'scan_type'])
      .where('id', '=', scanId)
      .forUpdate()
      .executeTakeFirst();
    if (current === undefined || current.lease_owner !== workerId) {
      return 'lost';
    }
    if (current.status !== 'running' && current.status !== 'cancelled') {
      return 'lost';
    }
    const scan = { id: scanId, tenantId: current.tenant_id, scanType: current.scan_type };
    await insertFindings(trx, scan, results.findings);
    const counts = {
      result_count: results.findings.length,
      findings_summary: JSON.stringify(results.summary),
      risk_score: results.riskScore,
      lease_owner: null,
      lease_expires_at: null,
    };
    if (current.status === 'cancelled') {
      await trx.updateTable('scans').set(counts).where('id', '=', scanId).execute();
      return 'kept-cancelled';
    }
    const moved =
      ending.kind === 'completed'
        ? await moveScan(
            trx,
            'complete',
            scanId,
            { ...counts, progress: 100, completed_at: sql`now()` },
            { leaseOwner: workerId },
          )
        : await moveScan(
            trx,
            'fail',
            scanId,
            {
              ...counts,
              completed_at: sql`now()`,
              error_code: ending.error.code,
              error_message: ending.error.message,
            },
            { leaseOwner: workerId },
          );
    if (moved === null) {
      throw new Error(`scan ${scanId} could not be moved after its row was locked`);
    }
    return 'finished';
  });
}
