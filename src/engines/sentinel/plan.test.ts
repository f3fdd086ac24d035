import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../domain/targets/parse-target.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { EngineName } from '../engine.js';
import { ENGINES } from '../registry.js';
import { checkEngineOptions } from '../validate-options.js';
import { PROGRESS_WEIGHTS, planSentinel, sentinelOptionsWithDefaults } from './plan.js';
import type { SentinelDepth, SentinelPlan, SentinelPlanInput } from './types.js';

/** A sentinel target as scan creation validates it. */
function target(value: string, type?: string): ScanTarget {
  const parsed = parseTarget(value, type, ENGINES.sentinel.targetTypes, 'sentinel');
  if (!parsed.ok) {
    throw new Error(parsed.reason);
  }
  return parsed.target;
}

const CHILD_ENGINES = [
  'nmap',
  'zap',
  'trivy',
  'nuclei',
  'nikto',
  'sqlmap',
  'wapiti',
  'harvester',
  'sublist3r',
] as const;

/** nmap's specification defaults, written out: every nmap child has them unless sentinel sets a value. */
const NMAP_DEFAULTS = {
  ports: '1-1024',
  timing: 'T3',
  serviceDetection: true,
  osDetection: false,
  scriptScan: false,
  scripts: [],
  udpScan: false,
};

interface Row {
  readonly name: string;
  readonly target: string;
  readonly targetType?: string;
  readonly depth?: SentinelDepth;
  readonly engines?: EngineName[];
  readonly allowed?: string[] | null;
  readonly runnable?: string[];
  readonly timeout?: number;
  readonly allowPrivate?: boolean;
  /** Expected children in order: engine, target value, target type. */
  readonly children?: Array<[EngineName, string, string]>;
  /** The nmap options sentinel sets (the rest are nmap's defaults). */
  readonly nmap?: Record<string, unknown>;
  /** Expected skipped engines in order, with their reasons (a RegExp for long tool reasons). */
  readonly skipped?: Array<[EngineName, string | RegExp]>;
  readonly error?: {
    readonly code: 'SCAN_TYPE_NOT_ALLOWED' | 'INVALID_TARGET' | 'SERVICE_UNAVAILABLE';
    readonly engine: EngineName | null;
    readonly reason: string | RegExp;
  };
}

const URL_ONLY = (engine: string) =>
  `${engine} scans URLs; give the sentinel scan a URL target to include it`;
const NEEDS_DOMAIN = (engine: string) =>
  `${engine} searches for a domain name; give the sentinel scan a domain or URL target to include it`;
const NOT_ALLOWED = 'not allowed for this API key';

const ROWS: Row[] = [
  // ---- quick: nmap and nuclei, on every target type
  {
    name: 'quick, URL with an IP host and a port: nmap gets the address and only that port',
    target: 'http://127.0.0.1:8080/app',
    depth: 'quick',
    children: [
      ['nmap', '127.0.0.1', 'ip'],
      ['nuclei', 'http://127.0.0.1:8080/app', 'url'],
    ],
    nmap: { ports: '8080' },
    skipped: [],
  },
  {
    name: 'quick, URL with a domain host and no port: http means port 80 (no topPorts)',
    target: 'http://example.com/',
    depth: 'quick',
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'http://example.com/', 'url'],
    ],
    nmap: { ports: '80' },
    skipped: [],
  },
  {
    name: 'quick, https URL without a port: 443',
    target: 'https://shop.example.com/login?next=/',
    depth: 'quick',
    children: [
      ['nmap', 'shop.example.com', 'domain'],
      ['nuclei', 'https://shop.example.com/login?next=/', 'url'],
    ],
    nmap: { ports: '443' },
    skipped: [],
  },
  {
    name: 'quick, https URL with the default port written out: still 443',
    target: 'https://example.com:443/',
    depth: 'quick',
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'https://example.com:443/', 'url'],
    ],
    nmap: { ports: '443' },
  },
  {
    name: 'quick, domain: nmap on the top 100 ports',
    target: 'example.com',
    depth: 'quick',
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'example.com', 'domain'],
    ],
    nmap: { topPorts: 100 },
    skipped: [],
  },
  {
    name: 'quick, single-label host',
    target: 'intranet',
    depth: 'quick',
    children: [
      ['nmap', 'intranet', 'host'],
      ['nuclei', 'intranet', 'host'],
    ],
    nmap: { topPorts: 100 },
    skipped: [],
  },
  {
    name: 'quick, a dotted name given as targetType host stays a host',
    target: 'www.example.com',
    targetType: 'host',
    depth: 'quick',
    children: [
      ['nmap', 'www.example.com', 'host'],
      ['nuclei', 'www.example.com', 'host'],
    ],
    nmap: { topPorts: 100 },
  },
  {
    name: 'quick, IPv4 address',
    target: '192.0.2.10',
    depth: 'quick',
    children: [
      ['nmap', '192.0.2.10', 'ip'],
      ['nuclei', '192.0.2.10', 'ip'],
    ],
    nmap: { topPorts: 100 },
    skipped: [],
  },
  {
    name: 'quick, IPv6 address',
    target: '2001:db8::1',
    depth: 'quick',
    children: [
      ['nmap', '2001:db8::1', 'ip'],
      ['nuclei', '2001:db8::1', 'ip'],
    ],
    nmap: { topPorts: 100 },
    skipped: [],
  },

  // ---- standard: adds harvester and zap (or nikto)
  {
    name: 'standard, URL with an IP host: harvester skipped (no name to search for)',
    target: 'http://127.0.0.1:8080/app',
    depth: 'standard',
    children: [
      ['nmap', '127.0.0.1', 'ip'],
      ['zap', 'http://127.0.0.1:8080/app', 'url'],
      ['nuclei', 'http://127.0.0.1:8080/app', 'url'],
    ],
    nmap: { ports: '8080' },
    skipped: [
      [
        'harvester',
        "harvester searches for a domain name; the URL's host 127.0.0.1 is an IP address",
      ],
    ],
  },
  {
    name: 'standard, URL with a domain host and an explicit port',
    target: 'http://example.com:8443/shop',
    depth: 'standard',
    children: [
      ['nmap', 'example.com', 'domain'],
      ['zap', 'http://example.com:8443/shop', 'url'],
      ['nuclei', 'http://example.com:8443/shop', 'url'],
      ['harvester', 'example.com', 'domain'],
    ],
    nmap: { ports: '8443' },
    skipped: [],
  },
  {
    name: 'standard, URL with a single-label host: nmap gets a host, harvester skipped',
    target: 'http://intranet:3000/',
    depth: 'standard',
    children: [
      ['nmap', 'intranet', 'host'],
      ['zap', 'http://intranet:3000/', 'url'],
      ['nuclei', 'http://intranet:3000/', 'url'],
    ],
    nmap: { ports: '3000' },
    skipped: [
      ['harvester', "harvester searches for a domain name; the URL's host intranet has no dot"],
    ],
  },
  {
    name: 'standard, URL with an IPv6 host: nmap gets it without brackets',
    target: 'https://[2001:db8::5]/',
    depth: 'standard',
    children: [
      ['nmap', '2001:db8::5', 'ip'],
      ['zap', 'https://[2001:db8::5]/', 'url'],
      ['nuclei', 'https://[2001:db8::5]/', 'url'],
    ],
    nmap: { ports: '443' },
    skipped: [
      [
        'harvester',
        "harvester searches for a domain name; the URL's host 2001:db8::5 is an IP address",
      ],
    ],
  },
  {
    name: 'standard, domain: no URL is guessed, so zap and nikto are skipped',
    target: 'example.com',
    depth: 'standard',
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'example.com', 'domain'],
      ['harvester', 'example.com', 'domain'],
    ],
    nmap: {},
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['nikto', URL_ONLY('nikto')],
    ],
  },
  {
    name: 'standard, host',
    target: 'intranet',
    depth: 'standard',
    children: [
      ['nmap', 'intranet', 'host'],
      ['nuclei', 'intranet', 'host'],
    ],
    nmap: {},
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['nikto', URL_ONLY('nikto')],
      ['harvester', NEEDS_DOMAIN('harvester')],
    ],
  },
  {
    name: 'standard, IPv4 address',
    target: '198.51.100.7',
    depth: 'standard',
    children: [
      ['nmap', '198.51.100.7', 'ip'],
      ['nuclei', '198.51.100.7', 'ip'],
    ],
    nmap: {},
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['nikto', URL_ONLY('nikto')],
      ['harvester', NEEDS_DOMAIN('harvester')],
    ],
  },
  {
    name: 'standard, zap has no worker: nikto instead',
    target: 'https://example.com/',
    depth: 'standard',
    runnable: ['nmap', 'nuclei', 'nikto', 'harvester'],
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'https://example.com/', 'url'],
      ['nikto', 'https://example.com/', 'url'],
      ['harvester', 'example.com', 'domain'],
    ],
    nmap: { ports: '443' },
    skipped: [['zap', 'no worker can run zap right now']],
  },
  {
    name: 'standard, the key may not use zap: nikto instead',
    target: 'https://example.com/',
    depth: 'standard',
    allowed: ['sentinel', 'nmap', 'nuclei', 'nikto', 'harvester'],
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'https://example.com/', 'url'],
      ['nikto', 'https://example.com/', 'url'],
      ['harvester', 'example.com', 'domain'],
    ],
    nmap: { ports: '443' },
    skipped: [['zap', NOT_ALLOWED]],
  },
  {
    name: 'standard, neither zap nor nikto has a worker: both listed',
    target: 'https://example.com/',
    depth: 'standard',
    runnable: ['nmap', 'nuclei', 'harvester'],
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'https://example.com/', 'url'],
      ['harvester', 'example.com', 'domain'],
    ],
    nmap: { ports: '443' },
    skipped: [
      ['zap', 'no worker can run zap right now'],
      ['nikto', 'no worker can run nikto right now'],
    ],
  },

  // ---- deep: every applicable engine, never trivy
  {
    name: 'deep, URL with a domain host: all eight, no trivy',
    target: 'https://example.com/',
    depth: 'deep',
    children: [
      ['nmap', 'example.com', 'domain'],
      ['zap', 'https://example.com/', 'url'],
      ['nuclei', 'https://example.com/', 'url'],
      ['nikto', 'https://example.com/', 'url'],
      ['sqlmap', 'https://example.com/', 'url'],
      ['wapiti', 'https://example.com/', 'url'],
      ['harvester', 'example.com', 'domain'],
      ['sublist3r', 'example.com', 'domain'],
    ],
    nmap: { ports: '443' },
    skipped: [],
  },
  {
    name: 'deep, URL with an IP host: the name engines skipped',
    target: 'http://127.0.0.1:8080/app',
    depth: 'deep',
    children: [
      ['nmap', '127.0.0.1', 'ip'],
      ['zap', 'http://127.0.0.1:8080/app', 'url'],
      ['nuclei', 'http://127.0.0.1:8080/app', 'url'],
      ['nikto', 'http://127.0.0.1:8080/app', 'url'],
      ['sqlmap', 'http://127.0.0.1:8080/app', 'url'],
      ['wapiti', 'http://127.0.0.1:8080/app', 'url'],
    ],
    nmap: { ports: '8080' },
    skipped: [
      [
        'harvester',
        "harvester searches for a domain name; the URL's host 127.0.0.1 is an IP address",
      ],
      [
        'sublist3r',
        "sublist3r searches for a domain name; the URL's host 127.0.0.1 is an IP address",
      ],
    ],
  },
  {
    name: 'deep, domain: the URL engines skipped with how to include them',
    target: 'example.com',
    depth: 'deep',
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'example.com', 'domain'],
      ['harvester', 'example.com', 'domain'],
      ['sublist3r', 'example.com', 'domain'],
    ],
    nmap: {},
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['nikto', URL_ONLY('nikto')],
      ['sqlmap', URL_ONLY('sqlmap')],
      ['wapiti', URL_ONLY('wapiti')],
    ],
  },
  {
    name: 'deep, IPv6 loopback (private targets allowed)',
    target: '::1',
    depth: 'deep',
    children: [
      ['nmap', '::1', 'ip'],
      ['nuclei', '::1', 'ip'],
    ],
    nmap: {},
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['nikto', URL_ONLY('nikto')],
      ['sqlmap', URL_ONLY('sqlmap')],
      ['wapiti', URL_ONLY('wapiti')],
      ['harvester', NEEDS_DOMAIN('harvester')],
      ['sublist3r', NEEDS_DOMAIN('sublist3r')],
    ],
  },
  {
    name: "deep, a punycode domain: sublist3r's targetProblem skips it",
    target: 'xn--bcher-kva.example.com',
    depth: 'deep',
    children: [
      ['nmap', 'xn--bcher-kva.example.com', 'domain'],
      ['nuclei', 'xn--bcher-kva.example.com', 'domain'],
      ['harvester', 'xn--bcher-kva.example.com', 'domain'],
    ],
    nmap: {},
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['nikto', URL_ONLY('nikto')],
      ['sqlmap', URL_ONLY('sqlmap')],
      ['wapiti', URL_ONLY('wapiti')],
      ['sublist3r', /^sublist3r takes only letters, digits/],
    ],
  },
  {
    name: "quick, host AS15169: nuclei's targetProblem skips it, nmap runs",
    target: 'AS15169',
    depth: 'quick',
    children: [['nmap', 'AS15169', 'host']],
    nmap: { topPorts: 100 },
    skipped: [['nuclei', /autonomous system number/]],
  },

  // ---- explicit engines: exactly those, in ENGINE_NAMES order, depth still sets nmap's ports
  {
    name: 'explicit trivy and nmap on a URL: trivy gets the URL',
    target: 'https://github.com/acme/app',
    depth: 'deep',
    engines: ['trivy', 'nmap'],
    children: [
      ['nmap', 'github.com', 'domain'],
      ['trivy', 'https://github.com/acme/app', 'url'],
    ],
    nmap: { ports: '443' },
    skipped: [],
  },
  {
    name: 'explicit engines replace the depth choice (standard, nmap only)',
    target: 'https://example.com/',
    depth: 'standard',
    engines: ['nmap'],
    children: [['nmap', 'example.com', 'domain']],
    nmap: { ports: '443' },
    skipped: [],
  },
  {
    name: 'explicit nmap at quick on a domain: top 100 ports',
    target: 'example.com',
    depth: 'quick',
    engines: ['nmap'],
    children: [['nmap', 'example.com', 'domain']],
    nmap: { topPorts: 100 },
  },
  {
    name: 'explicit engine not applicable: skipped, the rest run',
    target: 'example.com',
    depth: 'standard',
    engines: ['zap', 'sublist3r', 'nmap'],
    children: [
      ['nmap', 'example.com', 'domain'],
      ['sublist3r', 'example.com', 'domain'],
    ],
    nmap: {},
    skipped: [['zap', URL_ONLY('zap')]],
  },
  {
    name: 'explicit trivy on a domain: URL-only reason',
    target: 'example.com',
    engines: ['trivy', 'nuclei'],
    children: [['nuclei', 'example.com', 'domain']],
    skipped: [['trivy', URL_ONLY('trivy')]],
  },
  {
    name: 'explicit duplicates count once',
    target: 'example.com',
    engines: ['nuclei', 'nuclei'],
    children: [['nuclei', 'example.com', 'domain']],
    skipped: [],
  },
  {
    name: 'an empty engines list counts as absent (chosen by depth)',
    target: 'example.com',
    depth: 'quick',
    engines: [],
    children: [
      ['nmap', 'example.com', 'domain'],
      ['nuclei', 'example.com', 'domain'],
    ],
    nmap: { topPorts: 100 },
  },
  {
    name: 'explicit engine the key may not use: 403 naming it',
    target: 'https://example.com/',
    engines: ['nmap', 'sqlmap'],
    allowed: ['sentinel', 'nmap'],
    error: {
      code: 'SCAN_TYPE_NOT_ALLOWED',
      engine: 'sqlmap',
      reason: 'options.engines includes sqlmap, which this API key may not use',
    },
  },
  {
    name: 'explicit: the first refused engine in the given order, even when not applicable',
    target: 'example.com',
    engines: ['nmap', 'zap', 'sqlmap'],
    allowed: ['sentinel', 'nmap'],
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['sqlmap', URL_ONLY('sqlmap')],
    ],
    error: {
      code: 'SCAN_TYPE_NOT_ALLOWED',
      engine: 'zap',
      reason: 'options.engines includes zap, which this API key may not use',
    },
  },
  {
    name: 'explicit, not applicable at all: INVALID_TARGET',
    target: 'example.com',
    engines: ['zap', 'wapiti'],
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['wapiti', URL_ONLY('wapiti')],
    ],
    error: {
      code: 'INVALID_TARGET',
      engine: null,
      reason: `no engine of the sentinel plan can scan example.com (zap: ${URL_ONLY('zap')}; wapiti: ${URL_ONLY('wapiti')})`,
    },
  },
  {
    name: 'explicit sentinel (the schema refuses it; planning does not recurse)',
    target: 'example.com',
    engines: ['sentinel', 'nmap'],
    children: [['nmap', 'example.com', 'domain']],
    nmap: {},
    skipped: [['sentinel', 'sentinel does not run itself as a child scan']],
  },

  // ---- the key, automatic selection
  {
    name: 'automatic: engines outside the key are skipped',
    target: 'example.com',
    depth: 'quick',
    allowed: ['sentinel', 'nuclei'],
    children: [['nuclei', 'example.com', 'domain']],
    skipped: [['nmap', NOT_ALLOWED]],
  },
  {
    name: 'automatic: target reasons come before the key',
    target: 'example.com',
    depth: 'standard',
    allowed: ['sentinel', 'nmap'],
    children: [['nmap', 'example.com', 'domain']],
    nmap: {},
    skipped: [
      ['zap', URL_ONLY('zap')],
      ['nuclei', NOT_ALLOWED],
      ['nikto', URL_ONLY('nikto')],
      ['harvester', NOT_ALLOWED],
    ],
  },
  {
    name: 'automatic: the key refuses every applicable engine: 403 naming the first',
    target: 'example.com',
    depth: 'standard',
    allowed: ['sentinel', 'sqlmap', 'zap'],
    skipped: [
      ['nmap', NOT_ALLOWED],
      ['zap', URL_ONLY('zap')],
      ['nuclei', NOT_ALLOWED],
      ['nikto', URL_ONLY('nikto')],
      ['harvester', NOT_ALLOWED],
    ],
    error: {
      code: 'SCAN_TYPE_NOT_ALLOWED',
      engine: 'nmap',
      reason:
        'this API key may use none of the engines that can scan example.com (nmap, nuclei and harvester)',
    },
  },
  {
    name: 'the key comes before the workers',
    target: 'example.com',
    depth: 'quick',
    allowed: ['sentinel', 'nuclei'],
    runnable: [],
    skipped: [
      ['nmap', NOT_ALLOWED],
      ['nuclei', 'no worker can run nuclei right now'],
    ],
    error: {
      code: 'SERVICE_UNAVAILABLE',
      engine: null,
      reason: 'no worker can run nuclei right now',
    },
  },
  {
    name: 'no workers at all: SERVICE_UNAVAILABLE naming the engines',
    target: 'http://127.0.0.1:8080/app',
    depth: 'quick',
    runnable: ['zap'],
    skipped: [
      ['nmap', 'no worker can run nmap right now'],
      ['nuclei', 'no worker can run nuclei right now'],
    ],
    error: {
      code: 'SERVICE_UNAVAILABLE',
      engine: null,
      reason: 'no worker can run nmap and nuclei right now',
    },
  },

  // ---- refused ranges (defensive)
  {
    name: 'private targets not allowed: a loopback child is skipped; nothing left is INVALID_TARGET',
    target: 'http://127.0.0.1:8080/app',
    depth: 'quick',
    allowPrivate: false,
    skipped: [
      ['nmap', '127.0.0.1 is a loopback address'],
      ['nuclei', '127.0.0.1 is a loopback address'],
    ],
    error: {
      code: 'INVALID_TARGET',
      engine: null,
      reason:
        'no engine of the sentinel plan can scan http://127.0.0.1:8080/app (nmap: 127.0.0.1 is a loopback address; nuclei: 127.0.0.1 is a loopback address)',
    },
  },
  {
    name: 'private targets not allowed: a public address is planned as usual',
    target: 'http://192.0.2.10/',
    depth: 'quick',
    allowPrivate: false,
    children: [
      ['nmap', '192.0.2.10', 'ip'],
      ['nuclei', 'http://192.0.2.10/', 'url'],
    ],
    nmap: { ports: '80' },
    skipped: [],
  },
];

function inputOf(row: Row): SentinelPlanInput {
  return {
    target: target(row.target, row.targetType),
    options: {
      depth: row.depth ?? 'standard',
      ...(row.engines === undefined ? {} : { engines: row.engines }),
      correlate: true,
      riskScore: true,
    },
    allowedScanTypes: row.allowed === undefined ? null : row.allowed,
    runnable: new Set(row.runnable ?? CHILD_ENGINES),
    timeoutSeconds: row.timeout ?? null,
    allowPrivateTargets: row.allowPrivate ?? true,
  };
}

function checkSkipped(plan: SentinelPlan, expected: Row['skipped']): void {
  if (expected === undefined) {
    return;
  }
  expect(plan.skipped.map((entry) => entry.engine)).toEqual(expected.map(([engine]) => engine));
  plan.skipped.forEach((entry, index) => {
    const reason = expected[index]?.[1];
    if (reason instanceof RegExp) {
      expect(entry.reason).toMatch(reason);
    } else {
      expect(entry.reason).toBe(reason);
    }
  });
}

describe('planSentinel', () => {
  it.each(ROWS.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const plan = planSentinel(inputOf(row));
    checkSkipped(plan, row.skipped);
    if (row.error !== undefined) {
      expect(plan.ok).toBe(false);
      if (plan.ok) {
        return;
      }
      expect(plan.code).toBe(row.error.code);
      expect(plan.engine).toBe(row.error.engine);
      if (row.error.reason instanceof RegExp) {
        expect(plan.reason).toMatch(row.error.reason);
      } else {
        expect(plan.reason).toBe(row.error.reason);
      }
      return;
    }
    expect(plan.ok, plan.ok ? '' : plan.reason).toBe(true);
    if (!plan.ok) {
      return;
    }
    expect(plan.children.map((c) => [c.engine, c.target.value, c.target.type])).toEqual(
      row.children,
    );
    for (const child of plan.children) {
      // Derived targets carry the host the refused-range and resolution checks use.
      expect(child.target.host).not.toBeNull();
      if (child.engine === 'nmap') {
        expect(row.nmap, 'the row must say which nmap options it expects').toBeDefined();
        expect(child.options).toEqual({ ...NMAP_DEFAULTS, ...row.nmap });
      } else {
        const defaults = checkEngineOptions(ENGINES[child.engine], {});
        expect(defaults.ok && child.options).toEqual(defaults.ok && defaults.options);
      }
      expect(child.timeoutSeconds).toBe(ENGINES[child.engine].defaultTimeoutSeconds);
      expect(child.progressWeight).toBe(
        PROGRESS_WEIGHTS[child.engine as keyof typeof PROGRESS_WEIGHTS],
      );
    }
  });

  it('uses the request timeout for every child when one was given', () => {
    const plan = planSentinel(
      inputOf({ name: '', target: 'https://example.com/', depth: 'deep', timeout: 600 }),
    );
    expect(plan.ok).toBe(true);
    if (plan.ok) {
      expect(plan.children).toHaveLength(8);
      expect(new Set(plan.children.map((c) => c.timeoutSeconds))).toEqual(new Set([600]));
    }
  });

  it("else each engine's default timeout and its progress weight", () => {
    const plan = planSentinel(inputOf({ name: '', target: 'https://example.com/', depth: 'deep' }));
    expect(plan.ok).toBe(true);
    if (plan.ok) {
      expect(
        Object.fromEntries(
          plan.children.map((c) => [c.engine, [c.timeoutSeconds, c.progressWeight]]),
        ),
      ).toEqual({
        nmap: [3600, 2],
        zap: [7200, 5],
        nuclei: [3600, 3],
        nikto: [3600, 3],
        sqlmap: [3600, 3],
        wapiti: [3600, 4],
        harvester: [1800, 1],
        sublist3r: [1800, 1],
      });
    }
  });

  it('weights every child engine, trivy included', () => {
    expect(PROGRESS_WEIGHTS).toEqual({
      nmap: 2,
      zap: 5,
      trivy: 2,
      nuclei: 3,
      nikto: 3,
      sqlmap: 3,
      wapiti: 4,
      harvester: 1,
      sublist3r: 1,
    });
  });

  it('is deterministic and does not change its input', () => {
    const input = inputOf({ name: '', target: 'https://example.com/', depth: 'deep' });
    const before = JSON.stringify({ ...input, runnable: [...input.runnable] });
    expect(planSentinel(input)).toEqual(planSentinel(input));
    expect(JSON.stringify({ ...input, runnable: [...input.runnable] })).toBe(before);
  });

  it('gives every child its own options object', () => {
    const plan = planSentinel(inputOf({ name: '', target: 'example.com', depth: 'deep' }));
    expect(plan.ok).toBe(true);
    if (plan.ok) {
      const objects = plan.children.map((c) => c.options);
      expect(new Set(objects).size).toBe(objects.length);
    }
  });
});

describe('sentinelOptionsWithDefaults', () => {
  it.each<[string, Record<string, unknown>, unknown]>([
    ['nothing given', {}, { depth: 'standard', correlate: true, riskScore: true }],
    [
      'everything given',
      { depth: 'deep', engines: ['zap', 'nmap'], correlate: false, riskScore: false },
      { depth: 'deep', engines: ['zap', 'nmap'], correlate: false, riskScore: false },
    ],
    ['quick', { depth: 'quick' }, { depth: 'quick', correlate: true, riskScore: true }],
    [
      'an empty engines list stays (planning reads it as absent)',
      { engines: [] },
      { depth: 'standard', engines: [], correlate: true, riskScore: true },
    ],
    [
      'values of the wrong type fall back to the defaults',
      { depth: 'extreme', engines: 'nmap', correlate: 'yes', riskScore: 1 },
      { depth: 'standard', correlate: true, riskScore: true },
    ],
    [
      'unknown engine names are dropped',
      { engines: ['nmap', 'masscan'] },
      { depth: 'standard', engines: ['nmap'], correlate: true, riskScore: true },
    ],
  ])('%s', (_name, options, expected) => {
    expect(sentinelOptionsWithDefaults(options)).toEqual(expected);
  });

  it('reads options the sentinel schema filled in', () => {
    const checked = checkEngineOptions(ENGINES.sentinel, { depth: 'quick' });
    expect(checked.ok).toBe(true);
    if (checked.ok) {
      expect(sentinelOptionsWithDefaults(checked.options)).toEqual({
        depth: 'quick',
        correlate: true,
        riskScore: true,
      });
    }
  });
});
