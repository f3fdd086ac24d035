/**
 * A sentinel scan's whole lifecycle, in one place. A sentinel scan is a parent scan whose engines
 * run as child scans, planned when it is created. The parent then follows its children: it starts
 * when the first child is claimed, its progress is the children's weighted progress, and once
 * every child has ended and settled, their findings are correlated into the parent's and the
 * parent completes or fails (or, cancelled meanwhile, keeps its status and gets the partial
 * results). Cancelling the parent cancels its unfinished children.
 *
 * A child has settled when it is in a terminal status and no worker holds it any more: a running
 * child that was cancelled keeps its lease owner until its worker has stored the partial findings,
 * or until its lease runs out because that worker is gone. Collection is asked for by the worker
 * that ends a child, by a cancel, and by every worker's housekeeping (the safety net for a worker
 * that died in between); it happens once per parent: the store locks the run and marks it
 * collected in the same transaction.
 *
 * The SQL sits in the queue adapter behind `SentinelStore`; the decisions are here.
 */

import { ApiError } from '../../domain/errors.js';
import type { Finding } from '../../domain/findings/finding.js';
import type { ScanError, ScanRecord } from '../../domain/scans/scan.js';
import { isTerminal, type ScanStatus } from '../../domain/scans/status-machine.js';
import { type EngineDefinition, isEngineName } from '../../engines/engine.js';
import { ENGINES, runsAsChildScans } from '../../engines/registry.js';
import {
  aggregateSentinel,
  type SentinelAggregate,
  type SentinelChildEnd,
  type SentinelFindingRow,
} from '../../engines/sentinel/aggregate.js';
import {
  PROGRESS_WEIGHTS,
  planSentinel,
  sentinelOptionsWithDefaults,
} from '../../engines/sentinel/plan.js';
import type { PlannedChild, SourceFinding } from '../../engines/sentinel/types.js';
import { configFor } from '../../engines/web-config.js';
import type { IdSource } from '../ports/common.js';
import { NO_METRICS, type ServiceMetrics } from '../ports/metrics.js';
import type { NewScan } from '../ports/scans.js';
import type { ChildScanPlanner } from './create-scan.js';

/** A child as its parent's collection reads it. */
export interface SentinelChildState extends SentinelChildEnd {
  /** No worker holds it any more (its lease was let go, or ran out). */
  readonly released: boolean;
}

/** How the parent ends once its children have: what `SentinelCollection.store` writes. */
export type ParentEnd =
  | { readonly kind: 'keep-cancelled' }
  /** `startFirst`: the parent is still queued (its start was missed) and is started first. */
  | { readonly kind: 'complete'; readonly startFirst: boolean }
  | { readonly kind: 'fail'; readonly error: ScanError };

/** A parent's uncollected run, locked for collection: the verbs collection uses, one transaction. */
export interface SentinelCollection {
  readonly correlate: boolean;
  readonly riskScore: boolean;
  children(): Promise<SentinelChildState[]>;
  /** Writes the parent's progress from its children's, weighted by engine. */
  updateProgress(weights: Readonly<Record<string, number>>): Promise<void>;
  /** Locks the parent's row and reads its status and priority. */
  lockParent(): Promise<{ readonly status: ScanStatus; readonly priority: string }>;
  childFindings(childIds: readonly string[]): Promise<Finding[]>;
  /** Stores the parent's findings and counts, lands its end and marks the run collected. */
  store(result: {
    readonly findings: readonly SentinelFindingRow[];
    readonly aggregate: SentinelAggregate;
    readonly end: ParentEnd;
  }): Promise<void>;
}

/** The queue adapter's verbs for sentinel scans (adapters/queue/sentinel-runs.ts). */
export interface SentinelStore {
  /** Runs `work` on the parent's run if it is not collected yet (locked); else null. */
  collect<T>(parentId: string, work: (run: SentinelCollection) => Promise<T>): Promise<T | null>;
  /** Moves a queued parent to running (with its scan.started). */
  startParent(parentId: string): Promise<void>;
  updateProgress(parentId: string, weights: Readonly<Record<string, number>>): Promise<void>;
  /** Cancels the parent's queued and running children and tells their workers. */
  cancelChildren(parentId: string): Promise<void>;
  /** Uncollected parents whose children have all settled, or that are cancelled. */
  pendingParents(
    limit: number,
  ): Promise<ReadonlyArray<{ readonly id: string; readonly status: ScanStatus }>>;
}

export type CollectOutcome = 'collected' | 'waiting' | 'not-pending';

/** The parent's end from its status when collected and its children's aggregated ending. */
export function parentEnd(status: ScanStatus, ending: SentinelAggregate['ending']): ParentEnd {
  if (status === 'cancelled') {
    return { kind: 'keep-cancelled' };
  }
  return ending.kind === 'completed'
    ? { kind: 'complete', startFirst: status === 'queued' }
    : { kind: 'fail', error: ending.error };
}

function toSourceFinding(finding: Finding): SourceFinding | null {
  if (!isEngineName(finding.engine)) {
    return null;
  }
  const {
    id,
    scanId,
    engine,
    createdAt: _createdAt,
    correlation: _correlation,
    ...fields
  } = finding;
  return { ...fields, engine, scanId, findingId: id };
}

const MAX_NAME = 255;

function childConfig(
  schema: EngineDefinition['configSchema'],
  config: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return schema === undefined ? {} : configFor(schema, config);
}

/** A child scan row: the parent's priority, tags and asset; its own engine, target and options. */
function childScan(ids: IdSource, parent: NewScan, child: PlannedChild): NewScan {
  return {
    id: ids.uuid(),
    tenantId: parent.tenantId,
    apiKeyId: parent.apiKeyId,
    scanType: child.engine,
    name: `${child.engine}: ${parent.name}`.slice(0, MAX_NAME),
    target: child.target.value,
    targetType: child.target.type,
    priority: parent.priority,
    tags: parent.tags,
    options: child.options,
    // The parent's config (sealed as stored) to each child whose engine takes one: the sections
    // that engine understands.
    config: childConfig(ENGINES[child.engine].configSchema, parent.config),
    timeoutSeconds: child.timeoutSeconds,
    assetId: parent.assetId,
    callbackUrl: null,
    callbackSecret: null,
    templateId: null,
    parentScanId: parent.id,
    // The child's run joins the trace of the request that created its parent.
    traceContext: parent.traceContext,
  };
}

/**
 * Everything a sentinel scan does besides its own engine-less row. `plan` gives the children of a
 * new sentinel scan (engines chosen for its target and depth, among those the key may use and a
 * worker can run now) and its run record, null for any other engine; the plan's refusals are
 * thrown as the API's errors.
 */
export interface SentinelLifecycle extends ChildScanPlanner {
  /** After a cancel: a parent's children go with it; a child's parent is collected if it can be. */
  cancelled(scan: ScanRecord): Promise<void>;
  /** A child was claimed: its parent runs from then on. */
  childStarted(parentId: string): Promise<void>;
  childProgressed(parentId: string): Promise<void>;
  /** A child ended: its parent is collected once every child has. */
  childEnded(parentId: string): Promise<void>;
  /** Housekeeping: collects the parents nobody collected; returns how many. */
  collectPending(): Promise<number>;
  /** Collects one parent if every child has settled; otherwise updates its progress. */
  collect(parentId: string): Promise<CollectOutcome>;
}

const SETTLED_BATCH = 100;

/**
 * `metrics` counts a parent's own end (completed or failed; a cancelled parent was counted by its
 * cancel), as a worker counts a tool scan's.
 */
export function createSentinelLifecycle(
  store: SentinelStore,
  metrics: Pick<ServiceMetrics, 'scanFinished'> = NO_METRICS,
): SentinelLifecycle {
  async function collect(parentId: string): Promise<CollectOutcome> {
    const outcome = await store.collect(parentId, async (run) => {
      const children = await run.children();
      if (!children.every((child) => isTerminal(child.status) && child.released)) {
        await run.updateProgress(PROGRESS_WEIGHTS);
        return 'waiting' as const;
      }
      const { status, priority } = await run.lockParent();
      const findings =
        children.length === 0 ? [] : await run.childFindings(children.map((child) => child.id));
      const aggregate = aggregateSentinel({
        correlate: run.correlate,
        riskScore: run.riskScore,
        children,
        findings: findings.flatMap((finding) => toSourceFinding(finding) ?? []),
      });
      const end = parentEnd(status, aggregate.ending);
      await run.store({ findings: aggregate.findings, aggregate, end });
      if (end.kind !== 'keep-cancelled') {
        metrics.scanFinished(
          'sentinel',
          priority,
          end.kind === 'complete' ? 'completed' : 'failed',
          null,
        );
      }
      return 'collected' as const;
    });
    return outcome ?? 'not-pending';
  }

  return {
    plan(parent, request, context) {
      if (request.engine.kind === 'tool') {
        return null;
      }
      const options = sentinelOptionsWithDefaults(request.options);
      const plan = planSentinel({
        target: request.target,
        options,
        allowedScanTypes: context.caller.allowedScanTypes,
        runnable: context.runnable,
        timeoutSeconds: request.timeoutGiven ? request.timeoutSeconds : null,
        allowPrivateTargets: context.allowPrivateTargets,
      });
      if (!plan.ok) {
        switch (plan.code) {
          case 'SCAN_TYPE_NOT_ALLOWED':
            throw new ApiError('SCAN_TYPE_NOT_ALLOWED', {
              value: plan.engine ?? request.engine.name,
            });
          case 'INVALID_TARGET':
            throw new ApiError('INVALID_TARGET', { reason: plan.reason });
          case 'SERVICE_UNAVAILABLE':
            throw new ApiError('SERVICE_UNAVAILABLE', { reason: plan.reason });
        }
      }
      return {
        children: plan.children.map((child) => childScan(context.ids, parent, child)),
        run: {
          depth: options.depth,
          correlate: options.correlate,
          riskScore: options.riskScore,
          skipped: plan.skipped,
        },
      };
    },

    async cancelled(scan) {
      if (scan.parentScanId !== null) {
        await collect(scan.parentScanId);
        return;
      }
      if (!runsAsChildScans(scan.scanType)) {
        return;
      }
      await store.cancelChildren(scan.id);
      // Collected now when no child was running; else by the worker that ends the last of them.
      await collect(scan.id);
    },

    childStarted: (parentId) => store.startParent(parentId),
    childProgressed: (parentId) => store.updateProgress(parentId, PROGRESS_WEIGHTS),
    async childEnded(parentId) {
      await collect(parentId);
    },

    async collectPending() {
      let collected = 0;
      for (const parent of await store.pendingParents(SETTLED_BATCH)) {
        // A cancelled parent whose cascade was cut short (the process died after the cancel
        // committed) gets it here.
        if (parent.status === 'cancelled') {
          await store.cancelChildren(parent.id);
        }
        if ((await collect(parent.id)) === 'collected') {
          collected += 1;
        }
      }
      return collected;
    },

    collect,
  };
}
