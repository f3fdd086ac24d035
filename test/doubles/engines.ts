/**
 * Named test doubles for scan engines (registered only by tests and benchmarks, never by the
 * service): an instant engine that completes at once with given findings, and a held engine whose
 * runs wait until the test releases them or the worker aborts them.
 */
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import type {
  EngineRunner,
  EngineRunOutput,
  EngineRunRequest,
} from '../../src/use-cases/ports/engine-runs.js';

/** A finding as a parser would return it. */
export function draftFinding(overrides: Partial<DraftFinding> = {}): DraftFinding {
  return {
    ruleId: 'open-port',
    title: 'Open port 22/tcp (ssh)',
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    location: { host: '203.0.113.10', port: 22, protocol: 'tcp', url: null },
    identifiers: { cve: [], cwe: [] },
    description: 'OpenSSH 9.2',
    evidence: null,
    remediation: null,
    references: [],
    raw: { portid: '22' },
    ...overrides,
  };
}

/** Completes every scan at once (the "instant test engine" of the benchmarks). */
export function instantEngine(
  findings: (request: EngineRunRequest) => readonly DraftFinding[] = () => [],
): EngineRunner & { readonly runs: EngineRunRequest[] } {
  const runs: EngineRunRequest[] = [];
  return {
    runs,
    async run(request) {
      runs.push(request);
      return { findings: findings(request), warnings: [], ending: 'completed', message: null };
    },
  };
}

interface HeldRun {
  readonly request: EngineRunRequest;
  release(output: Partial<EngineRunOutput>): void;
}

/**
 * Each run waits until `release(scanId, output)` or until its signal aborts (then it answers
 * `cancelled` with `partialFindings`).
 */
export function heldEngine(partialFindings: readonly DraftFinding[] = []) {
  const held = new Map<string, HeldRun>();
  const waiters: Array<() => void> = [];
  const engine: EngineRunner = {
    run(request) {
      return new Promise<EngineRunOutput>((resolve) => {
        const finish = (output: Partial<EngineRunOutput>) => {
          held.delete(request.scan.id);
          resolve({ findings: [], warnings: [], ending: 'completed', message: null, ...output });
        };
        held.set(request.scan.id, { request, release: finish });
        request.signal.addEventListener('abort', () =>
          finish({ findings: partialFindings, ending: 'cancelled' }),
        );
        for (const waiter of waiters.splice(0)) {
          waiter();
        }
      });
    },
  };
  return {
    engine,
    held,
    release(scanId: string, output: Partial<EngineRunOutput> = {}) {
      const run = held.get(scanId);
      if (!run) {
        throw new Error(`scan ${scanId} is not running in the held engine`);
      }
      run.release(output);
    },
    /** Resolves once `scanId` is running in this engine. */
    async waitFor(scanId: string, timeoutMs = 10_000): Promise<EngineRunRequest> {
      const deadline = Date.now() + timeoutMs;
      while (!held.has(scanId)) {
        if (Date.now() > deadline) {
          throw new Error(`scan ${scanId} did not start within ${timeoutMs} ms`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      const run = held.get(scanId);
      if (!run) {
        throw new Error('unreachable');
      }
      return run.request;
    },
  };
}
