/**
 * Webhook filters (issue 23, a Rampart extension): a webhook may set `filters: { minSeverity,
 * onlyNew }` to be told about a completed scan only when it found something that needs
 * attention. Filters gate `scan.completed` only; the other events (scan.started, scan.failed,
 * scan.cancelled) reach a filtered webhook as they reach any other, with the contract's body.
 *
 * - `onlyNew: true` (the default): sent when the scan opened or reopened an untriaged issue at or
 *   above `minSeverity`.
 * - `onlyNew: false`: sent when the scan saw any untriaged issue at or above `minSeverity`, new,
 *   reopened or still open from before.
 * - `minSeverity` defaults to `info` (any severity).
 *
 * A sent body adds `data.findings` (scan-changes.ts, findingsSummaryOf) after the contract's
 * fields; a webhook without filters gets the contract's body, byte for byte.
 */
import { SEVERITIES, type Severity } from '../findings/finding.js';
import { severityRank } from '../findings/severity-order.js';
import { findingsSummaryOf, type ScanIssueChanges } from '../issues/scan-changes.js';

export interface WebhookFilters {
  readonly minSeverity: Severity;
  readonly onlyNew: boolean;
}

/** The event filters gate. */
export const FILTERED_EVENT = 'scan.completed';

export const DEFAULT_MIN_SEVERITY: Severity = 'info';

/** The filters as given (both optional) with their defaults filled in. */
export function withDefaults(input: {
  readonly minSeverity?: Severity | undefined;
  readonly onlyNew?: boolean | undefined;
}): WebhookFilters {
  return {
    minSeverity: input.minSeverity ?? DEFAULT_MIN_SEVERITY,
    onlyNew: input.onlyNew ?? true,
  };
}

/** Reads stored filters (JSON); null stays null (no filters). */
export function parseWebhookFilters(value: unknown): WebhookFilters | null {
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  const { minSeverity, onlyNew } = value as Record<string, unknown>;
  return withDefaults({
    minSeverity: (SEVERITIES as readonly unknown[]).includes(minSeverity)
      ? (minSeverity as Severity)
      : undefined,
    onlyNew: typeof onlyNew === 'boolean' ? onlyNew : undefined,
  });
}

/** Whether a filtered webhook gets the scan.completed event of a scan with these changes. */
export function passesFilters(filters: WebhookFilters, changes: ScanIssueChanges): boolean {
  const threshold = severityRank(filters.minSeverity);
  const atOrAbove = SEVERITIES.filter((severity) => severityRank(severity) <= threshold);
  return atOrAbove.some((severity) =>
    filters.onlyNew
      ? changes.new[severity] + changes.reopened[severity] > 0
      : changes.seen[severity] > 0,
  );
}

/**
 * What a webhook is sent for one event: null (nothing), or the body. `contractBody` is the
 * event's body as the outbox stored it, sent as it is to a webhook without filters and for every
 * event filters do not gate; a filtered scan.completed adds `data.findings` after the contract's
 * fields (JSON.parse keeps their order).
 */
export function bodyFor(
  filters: WebhookFilters | null,
  event: string,
  contractBody: string,
  changes: ScanIssueChanges,
): string | null {
  if (filters === null || event !== FILTERED_EVENT) {
    return contractBody;
  }
  if (!passesFilters(filters, changes)) {
    return null;
  }
  const body = JSON.parse(contractBody) as { data?: Record<string, unknown> };
  return JSON.stringify({
    ...body,
    data: { ...body.data, findings: findingsSummaryOf(changes) },
  });
}
