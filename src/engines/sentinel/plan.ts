/**
 * Planning of a sentinel scan: which engines run as child scans, on which target each, with which
 * options, timeout and share of the parent's progress; and which engines were left out, and why.
 * Pure and deterministic: everything it needs (target, options, the key's engines, the engines a
 * live worker can run) is given; nothing is looked up. The rules are tabulated in
 * README.md, "Planning".
 *
 * Decided rules (the specification only says "quick uses nmap and nuclei; standard adds harvester
 * and zap or nikto; deep uses all applicable engines"):
 * - Automatic candidates: quick nmap, nuclei; standard adds harvester and zap, or nikto when zap
 *   cannot be used (not applicable, not allowed for the key, or no worker); deep every engine that
 *   scans running services. trivy is never chosen automatically: its `url` target is a remote git
 *   repository, not a running service. `options.engines` replaces the candidates exactly (an
 *   empty list counts as absent).
 * - Each child's target is derived from the sentinel target, never guessed: a URL goes as is to the
 *   engines that take URLs; nmap gets the URL's host with `ports` set to the URL's port; harvester
 *   and sublist3r get the URL's host only when it is a DNS name with a dot. No URL is ever made up
 *   from a name, so URL-only engines are skipped for domain, host and ip targets.
 * - Checks per engine, in order: the target (type, grammar, `targetProblem`, refused ranges, then
 *   the derived options), the key, a worker. The first failing check is the skip reason.
 * - An explicitly requested engine the key may not use is 403 SCAN_TYPE_NOT_ALLOWED whatever its
 *   target (decisions.md: "an `options.engines` entry outside the key's `allowedScanTypes` → 403
 *   naming it"), the first such entry in the given order; automatic selection skips such engines.
 */
import { parseTarget } from '../../domain/targets/parse-target.js';
import { targetRefusal } from '../../domain/targets/refused-ranges.js';
import type { ScanTarget, TargetType } from '../../domain/targets/target.js';
import { ENGINE_NAMES, type EngineDefinition, type EngineName, isEngineName } from '../engine.js';
import { ENGINES } from '../registry.js';
import { checkEngineOptions } from '../validate-options.js';
import {
  type PlannedChild,
  SENTINEL_DEPTHS,
  type SentinelDepth,
  type SentinelOptions,
  type SentinelPlan,
  type SentinelPlanInput,
  type SkippedEngine,
} from './types.js';

/** The engines a sentinel scan can run as children: every engine but sentinel itself. */
export type SentinelChildEngine = Exclude<EngineName, 'sentinel'>;

/**
 * Each engine's share of a sentinel scan's progress, relative to its siblings: roughly how long
 * the engine usually runs (ZAP's spider and active scan longest, the passive OSINT tools shortest).
 * The parent's progress is the weighted mean of its children's.
 */
export const PROGRESS_WEIGHTS: Readonly<Record<SentinelChildEngine, number>> = {
  nmap: 2,
  zap: 5,
  trivy: 2,
  nuclei: 3,
  nikto: 3,
  sqlmap: 3,
  wapiti: 4,
  harvester: 1,
  sublist3r: 1,
};

/** The `depth` when none is given (specification, sentinel options). */
const DEFAULT_DEPTH: SentinelDepth = 'standard';

/** nmap's `topPorts` at depth quick (when the target is not a URL, whose port is scanned alone). */
const QUICK_TOP_PORTS = 100;

/** Every engine depth deep considers: all that scan running services (not trivy). */
const DEEP_ENGINES: readonly SentinelChildEngine[] = [
  'nmap',
  'nuclei',
  'zap',
  'nikto',
  'sqlmap',
  'wapiti',
  'harvester',
  'sublist3r',
];

/**
 * The typed view of sentinel options that already passed the schema; absent fields get the
 * specification's defaults (depth standard, correlate and riskScore true) and `engines` stays
 * absent when not given (chosen by depth). The checks only narrow `unknown`.
 * @example sentinelOptionsWithDefaults({ depth: 'quick' })
 *   // { depth: 'quick', correlate: true, riskScore: true }
 */
export function sentinelOptionsWithDefaults(options: Record<string, unknown>): SentinelOptions {
  const depth = SENTINEL_DEPTHS.find((candidate) => candidate === options.depth) ?? DEFAULT_DEPTH;
  const base = {
    depth,
    correlate: typeof options.correlate === 'boolean' ? options.correlate : true,
    riskScore: typeof options.riskScore === 'boolean' ? options.riskScore : true,
  };
  if (!Array.isArray(options.engines)) {
    return base;
  }
  const engines = options.engines.filter((name): name is EngineName => isEngineName(name));
  return { ...base, engines };
}

/** Why an engine was left out: its target, the key, or the workers. */
type SkipKind = 'target' | 'key' | 'worker';

type Verdict =
  | { readonly ok: true; readonly child: PlannedChild }
  | { readonly ok: false; readonly kind: SkipKind; readonly reason: string };

const skip = (kind: SkipKind, reason: string): Verdict => ({ ok: false, kind, reason });

/** A URL target's port: the explicit one, else the scheme's (80 for http, 443 for https). */
function urlPort(value: string): string {
  try {
    const url = new URL(value);
    // WHATWG leaves `port` empty for the scheme's default port, even when it was written.
    return url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  } catch {
    // parseTarget accepted the URL, so it parses; an http default is all that is left to say.
    return '80';
  }
}

/** Whether an engine takes only URLs (zap, nikto, sqlmap, wapiti; trivy, whose other type is image). */
function takesOnlyUrls(types: readonly TargetType[]): boolean {
  return types.includes('url') && !types.some((type) => ['host', 'domain', 'ip'].includes(type));
}

type Derived =
  | { readonly ok: true; readonly value: string; readonly type: TargetType | undefined }
  | { readonly ok: false; readonly reason: string };

/**
 * What an engine is given of the sentinel target, before validation: the value and its target
 * type (undefined: inferred by parseTarget, as for a URL's host given to nmap).
 */
function deriveTarget(engine: EngineDefinition, target: ScanTarget): Derived {
  const types = engine.targetTypes;
  if (target.type === 'url') {
    if (types.includes('url')) {
      return { ok: true, value: target.value, type: 'url' };
    }
    const host = target.host;
    if (host === null) {
      return { ok: false, reason: `the URL ${target.value} has no host` };
    }
    if (types.includes('host') || types.includes('ip')) {
      return { ok: true, value: host, type: undefined };
    }
    // harvester, sublist3r: a name to search public sources for.
    if (target.hostIsAddress) {
      return {
        ok: false,
        reason: `${engine.name} searches for a domain name; the URL's host ${host} is an IP address`,
      };
    }
    if (!host.includes('.')) {
      return {
        ok: false,
        reason: `${engine.name} searches for a domain name; the URL's host ${host} has no dot`,
      };
    }
    return { ok: true, value: host, type: 'domain' };
  }
  if (types.includes(target.type)) {
    return { ok: true, value: target.value, type: target.type };
  }
  // An address or a domain is also a host (parseTarget's inference does the same).
  if ((target.type === 'ip' || target.type === 'domain') && types.includes('host')) {
    return { ok: true, value: target.value, type: 'host' };
  }
  if (takesOnlyUrls(types)) {
    return {
      ok: false,
      reason: `${engine.name} scans URLs; give the sentinel scan a URL target to include it`,
    };
  }
  if (types.includes('domain')) {
    return {
      ok: false,
      reason: `${engine.name} searches for a domain name; give the sentinel scan a domain or URL target to include it`,
    };
  }
  return {
    ok: false,
    reason: `${engine.name} does not scan ${target.type} targets (it takes ${types.join(', ')})`,
  };
}

/** The option values sentinel gives an engine; everything else is the engine's default. */
function givenOptions(
  engine: SentinelChildEngine,
  target: ScanTarget,
  depth: SentinelDepth,
): Record<string, unknown> {
  if (engine !== 'nmap') {
    return {};
  }
  if (target.type === 'url') {
    return { ports: urlPort(target.value) };
  }
  return depth === 'quick' ? { topPorts: QUICK_TOP_PORTS } : {};
}

/** The checks of one engine, in order: target and options, key, worker. */
function evaluate(engineName: EngineName, input: SentinelPlanInput): Verdict {
  if (engineName === 'sentinel') {
    return skip('target', 'sentinel does not run itself as a child scan');
  }
  const engine = ENGINES[engineName];
  const derived = deriveTarget(engine, input.target);
  if (!derived.ok) {
    return skip('target', derived.reason);
  }
  const parsed = parseTarget(derived.value, derived.type, engine.targetTypes, engine.name);
  if (!parsed.ok) {
    return skip('target', parsed.reason);
  }
  const target = parsed.target;
  const problem = engine.targetProblem?.(target) ?? null;
  if (problem !== null) {
    return skip('target', problem);
  }
  // Defensive: the parent's target passed the same rules, and a child's host is the parent's.
  const refusal = targetRefusal(target, input.allowPrivateTargets);
  if (refusal !== null) {
    return skip('target', refusal);
  }
  const checked = checkEngineOptions(
    engine,
    givenOptions(engineName, input.target, input.options.depth),
  );
  if (!checked.ok) {
    return skip('target', `${engine.name} options: ${checked.error.message}`);
  }
  const optionsProblem = engine.optionsProblem?.(checked.options, target) ?? null;
  if (optionsProblem !== null) {
    return skip(
      'target',
      `${engine.name} options.${optionsProblem.field}: ${optionsProblem.reason}`,
    );
  }
  if (input.allowedScanTypes !== null && !input.allowedScanTypes.includes(engineName)) {
    return skip('key', 'not allowed for this API key');
  }
  if (!input.runnable.has(engineName)) {
    return skip('worker', `no worker can run ${engineName} right now`);
  }
  return {
    ok: true,
    child: {
      engine: engineName,
      target,
      options: checked.options,
      timeoutSeconds: input.timeoutSeconds ?? engine.defaultTimeoutSeconds,
      progressWeight: PROGRESS_WEIGHTS[engineName],
    },
  };
}

/** "nmap", "nmap and zap", "nmap, nuclei and zap". */
function listNames(names: readonly string[]): string {
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

const engineOrder = (engine: EngineName): number => ENGINE_NAMES.indexOf(engine);

/**
 * Plans a sentinel scan. Children and skipped engines come in ENGINE_NAMES order. Fails with
 * SCAN_TYPE_NOT_ALLOWED for an explicit engine the key may not use; when no engine is left, with
 * INVALID_TARGET if none could scan the target at all, SCAN_TYPE_NOT_ALLOWED if the key refused
 * every engine that could, else SERVICE_UNAVAILABLE.
 *
 * @example planSentinel({ target: url('http://127.0.0.1:8080/app'), options: { depth: 'quick', … }, … })
 *   // children: nmap on 127.0.0.1 (ip) with ports '8080'; nuclei on the URL
 */
export function planSentinel(input: SentinelPlanInput): SentinelPlan {
  const verdicts = new Map<EngineName, Verdict>();
  const verdictOf = (engine: EngineName): Verdict => {
    let verdict = verdicts.get(engine);
    if (verdict === undefined) {
      verdict = evaluate(engine, input);
      verdicts.set(engine, verdict);
    }
    return verdict;
  };

  // An empty list asks for nothing in particular: chosen by depth, like an absent one.
  const explicit =
    input.options.engines !== undefined && input.options.engines.length > 0
      ? input.options.engines
      : undefined;
  let candidates: readonly EngineName[];
  if (explicit !== undefined) {
    candidates = [...new Set(explicit)];
  } else if (input.options.depth === 'quick') {
    candidates = ['nmap', 'nuclei'];
  } else if (input.options.depth === 'standard') {
    candidates = ['nmap', 'nuclei', 'harvester', 'zap'];
    if (!verdictOf('zap').ok) {
      candidates = [...candidates, 'nikto'];
    }
  } else {
    candidates = DEEP_ENGINES;
  }

  const children: PlannedChild[] = [];
  const skipped: Array<SkippedEngine & { readonly kind: SkipKind }> = [];
  for (const engine of [...candidates].sort((a, b) => engineOrder(a) - engineOrder(b))) {
    const verdict = verdictOf(engine);
    if (verdict.ok) {
      children.push(verdict.child);
    } else {
      skipped.push({ engine, reason: verdict.reason, kind: verdict.kind });
    }
  }
  const skippedView: SkippedEngine[] = skipped.map(({ engine, reason }) => ({ engine, reason }));

  const allowed = input.allowedScanTypes;
  const forbidden =
    explicit === undefined || allowed === null
      ? undefined
      : explicit.find((engine) => !allowed.includes(engine));
  if (forbidden !== undefined) {
    return {
      ok: false,
      code: 'SCAN_TYPE_NOT_ALLOWED',
      reason: `options.engines includes ${forbidden}, which this API key may not use`,
      engine: forbidden,
      skipped: skippedView,
    };
  }
  if (children.length > 0) {
    return { ok: true, children, skipped: skippedView };
  }

  const ofKind = (kind: SkipKind) => skipped.filter((entry) => entry.kind === kind);
  const refusedByKey = ofKind('key');
  const noWorker = ofKind('worker');
  if (refusedByKey.length === 0 && noWorker.length === 0) {
    const reasons = skipped.map(({ engine, reason }) => `${engine}: ${reason}`).join('; ');
    return {
      ok: false,
      code: 'INVALID_TARGET',
      reason: `no engine of the sentinel plan can scan ${input.target.value}${reasons === '' ? '' : ` (${reasons})`}`,
      engine: null,
      skipped: skippedView,
    };
  }
  const [firstRefused] = refusedByKey;
  if (noWorker.length === 0 && firstRefused !== undefined) {
    return {
      ok: false,
      code: 'SCAN_TYPE_NOT_ALLOWED',
      reason: `this API key may use none of the engines that can scan ${input.target.value} (${listNames(refusedByKey.map((entry) => entry.engine))})`,
      engine: firstRefused.engine,
      skipped: skippedView,
    };
  }
  return {
    ok: false,
    code: 'SERVICE_UNAVAILABLE',
    reason: `no worker can run ${listNames(noWorker.map((entry) => entry.engine))} right now`,
    engine: null,
    skipped: skippedView,
  };
}
