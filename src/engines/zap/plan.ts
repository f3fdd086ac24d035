/**
 * The ZAP Automation Framework plan for one scan: typed options and a validated `url` target in,
 * plain data out (rendered to YAML by `yaml.ts` and written into the workspace with mode 0600 by
 * the runner). Every option of the specification lives here, none on the command line, so no
 * credential ever appears in argv (where `ps` and process listings would show it).
 *
 * Contract checked against the Automation Framework help of zaproxy/zap-extensions
 * (`environment.html`, `job-ascan.html`, `job-pscanwait.html`, the spider, spiderAjax, replacer
 * and reports add-on `automation.html` pages) and its sources (`AutomationEnvironment`,
 * `ContextWrapper`, `ActiveScanJob`, `AuthenticationData`). The contract is in README.md.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import { excludedUrlRegex, type WebConfig } from '../web-config.js';
import {
  completeAuthentication,
  type ZapAuthentication,
  type ZapOptions,
  type ZapScanPolicy,
} from './options.js';
import { renderYaml, type YamlValue } from './yaml.js';

/** The one context of the plan; jobs name it explicitly. */
export const ZAP_CONTEXT_NAME = 'rampart-target';
/** The context user of form authentication; the spiders and the active scan run as it. */
export const ZAP_USER_NAME = 'rampart-user';
/** The report template we parse (`parse.ts` also reads the traditional XML). */
export const ZAP_REPORT_TEMPLATE = 'traditional-json';

/** `${`, where ZAP's variable substitution starts (escaped: it is no template placeholder here). */
const ZAP_VARIABLE_START = '$\u007b';

/** Where the report job writes, inside the workspace. */
export interface ZapPlanContext {
  readonly reportDir: string;
  readonly reportFile: string;
  /** The scan's config (../web-config.ts): headers, cookies, auth, user agent, exclusions. */
  readonly config?: WebConfig;
}

/**
 * Time budgets (minutes) and active-scan policy per `scanPolicy`. ZAP writes its report only when
 * the plan's last job runs, so a plan that outlives the scan timeout leaves no report at all: the
 * budgets keep the worst case (every job at its limit) below the default timeout of 7200 s with a
 * few minutes left for ZAP's start, the passive scan and the report. Strength is how many attack
 * variants each rule tries, threshold how readily it reports (ZAP's own words: `low` threshold =
 * more alerts, more false positives). `insane` strength is never used.
 */
const POLICY: {
  readonly [P in ZapScanPolicy]: {
    readonly spiderMinutes: number;
    readonly ajaxSpiderMinutes: number;
    readonly passiveWaitMinutes: number;
    readonly activeScanMinutes: number;
    readonly activeRuleMinutes: number;
    readonly strength: 'low' | 'medium' | 'high';
    readonly threshold: 'low' | 'medium' | 'high';
  };
} = {
  light: {
    spiderMinutes: 5,
    ajaxSpiderMinutes: 5,
    passiveWaitMinutes: 5,
    activeScanMinutes: 15,
    activeRuleMinutes: 2,
    strength: 'low',
    threshold: 'medium',
  },
  standard: {
    spiderMinutes: 10,
    ajaxSpiderMinutes: 10,
    passiveWaitMinutes: 10,
    activeScanMinutes: 60,
    activeRuleMinutes: 10,
    strength: 'medium',
    threshold: 'medium',
  },
  full: {
    spiderMinutes: 20,
    ajaxSpiderMinutes: 20,
    passiveWaitMinutes: 15,
    activeScanMinutes: 55,
    activeRuleMinutes: 15,
    strength: 'high',
    threshold: 'low',
  },
};

/** The target URL as parsed once: WHATWG form and origin. */
interface TargetUrl {
  /** `https://app.example.com/path?q` (default port dropped, path at least `/`). */
  readonly href: string;
  /** `https://app.example.com` or `http://10.0.0.5:8080`. */
  readonly origin: string;
}

/**
 * Braces percent-encoded. ZAP substitutes `${NAME}` in context URLs and job URLs with
 * environment variables (no escape exists); `%7B`/`%7D` are what a browser sends for them anyway.
 */
function withoutBraces(url: string): string {
  return url.replaceAll('{', '%7B').replaceAll('}', '%7D');
}

function targetUrl(target: ScanTarget): TargetUrl {
  if (target.type !== 'url') {
    throw new Error(`zap does not scan ${target.type} targets`);
  }
  let url: URL;
  try {
    url = new URL(target.value);
  } catch {
    throw new Error('zap target is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`zap does not scan ${url.protocol} URLs`);
  }
  return { href: withoutBraces(url.href), origin: url.origin };
}

/**
 * A Java regex matching every URL outside `origin`: the first exclude of the context. ZAP lets
 * excludes win over includes, so whatever `contextInclude` says, the spiders and the active scan
 * never leave the validated target's origin (an include such as `.*` would otherwise let a link
 * on the target lead ZAP to attack other hosts, private addresses included). `\Q…\E` quotes the
 * origin, which has no backslash.
 */
export function outsideOriginRegex(origin: string): string {
  return `^(?!\\Q${origin}/\\E).*`;
}

/** A Java regex matching every URL of `origin`: where the authentication header goes. */
export function insideOriginRegex(origin: string): string {
  return `^\\Q${origin}/\\E.*`;
}

/**
 * Why these options cannot run against this target, or an empty list. The schema cannot say
 * either: it keeps the authentication fields optional (one object for three types) and does not
 * know the target. Scan creation should call this and answer INVALID_FIELD_VALUE; the plan builder
 * throws the same reasons as a last fence.
 * @example zapOptionProblems(opts, target) // ['authentication of type header needs headerValue']
 */
export function zapOptionProblems(options: ZapOptions, target: ScanTarget): string[] {
  const variables = planStrings(options).filter((text) => text.includes(ZAP_VARIABLE_START));
  if (variables.length > 0) {
    // The schema refuses these; checked again because ZAP would substitute them.
    return ['option values must not contain $\u007b (ZAP would substitute a variable)'];
  }
  if (options.authentication === null) {
    return [];
  }
  const complete = completeAuthentication(options.authentication);
  if ('missing' in complete) {
    return [
      `authentication of type ${options.authentication.type} needs ${complete.missing.join(', ')}`,
    ];
  }
  const auth = complete.authentication;
  if (auth.type === 'form') {
    const origin = targetUrl(target).origin;
    let loginOrigin: string | null = null;
    try {
      loginOrigin = new URL(auth.loginUrl).origin;
    } catch {
      loginOrigin = null;
    }
    if (loginOrigin !== origin) {
      return [`authentication.loginUrl must be on the target's origin ${origin}`];
    }
  }
  return [];
}

/** Every string of the options that goes into the plan. */
function planStrings(options: ZapOptions): string[] {
  return [
    ...options.contextInclude,
    ...options.contextExclude,
    ...Object.values(options.authentication ?? {}).filter(
      (value): value is string => typeof value === 'string',
    ),
  ];
}

type Mapping = { readonly [key: string]: YamlValue };

/** What each option adds to the plan, keyed by option name (the compiler wants every one). */
interface PlanParts {
  readonly includePaths: readonly string[];
  readonly excludePaths: readonly string[];
  readonly ajaxSpider: boolean;
  readonly activeScan: boolean;
}

/**
 * Each option's contribution. `scanPolicy`, `spiderMaxDepth` and `authentication` shape the jobs
 * themselves (budgets, depth, user, replacer rule); they are read where the jobs are built and
 * listed here so the table names every option.
 */
const OPTION_PLAN: {
  readonly [K in keyof ZapOptions]-?: (options: ZapOptions) => Partial<PlanParts>;
} = {
  scanPolicy: () => ({}),
  spiderMaxDepth: () => ({}),
  ajaxSpider: (o) => ({ ajaxSpider: o.ajaxSpider }),
  activeScan: (o) => ({ activeScan: o.activeScan }),
  contextInclude: (o) => ({ includePaths: o.contextInclude }),
  contextExclude: (o) => ({ excludePaths: o.contextExclude }),
  authentication: () => ({}),
};

function planParts(options: ZapOptions): PlanParts {
  const parts: PlanParts = {
    includePaths: [],
    excludePaths: [],
    ajaxSpider: false,
    activeScan: false,
  };
  return Object.assign(parts, ...Object.values(OPTION_PLAN).map((part) => part(options)));
}

function checkedAuthentication(options: ZapOptions, target: ScanTarget): ZapAuthentication | null {
  const problems = zapOptionProblems(options, target);
  if (problems.length > 0) {
    throw new Error(`zap options cannot run: ${problems.join('; ')}`);
  }
  if (options.authentication === null) {
    return null;
  }
  const complete = completeAuthentication(options.authentication);
  return 'authentication' in complete ? complete.authentication : null;
}

/** The context's form authentication and its one user (only for `form`). */
function formAuthentication(auth: ZapAuthentication): Mapping {
  if (auth.type !== 'form') {
    return {};
  }
  const loginUrl = withoutBraces(auth.loginUrl);
  return {
    authentication: {
      method: 'form',
      parameters: {
        loginPageUrl: loginUrl,
        loginRequestUrl: loginUrl,
        // ZAP puts the URL-encoded credentials in place of the two tokens.
        loginRequestBody: `${encodeURIComponent(auth.usernameField)}={%username%}&${encodeURIComponent(auth.passwordField)}={%password%}`,
      },
    },
    users: [
      {
        name: ZAP_USER_NAME,
        credentials: { username: auth.username, password: auth.password },
      },
    ],
  };
}

/** The headers `config` sets on every request (cookies as one Cookie header, auth as Authorization). */
function configHeaders(config: WebConfig | undefined): Array<readonly [string, string]> {
  if (config === undefined) {
    return [];
  }
  const headers: Array<readonly [string, string]> = Object.entries(config.headers);
  const cookies = Object.entries(config.cookies).map(([name, value]) => `${name}=${value}`);
  if (cookies.length > 0) {
    headers.push(['Cookie', cookies.join('; ')]);
  }
  if (config.auth?.type === 'basic') {
    const pair = `${config.auth.username}:${config.auth.password}`;
    headers.push(['Authorization', `Basic ${Buffer.from(pair).toString('base64')}`]);
  } else if (config.auth?.type === 'bearer') {
    headers.push(['Authorization', `Bearer ${config.auth.token}`]);
  }
  if (config.userAgent !== null) {
    headers.push(['User-Agent', config.userAgent]);
  }
  return headers;
}

/**
 * One replacer job setting each header on every request to the target's origin: the config's
 * (`config-<n>` rules), then the header (or cookie) of `authentication`, which wins for the same
 * header as the later rule.
 */
function headerJob(
  auth: ZapAuthentication | null,
  config: WebConfig | undefined,
  origin: string,
): Mapping[] {
  const headers: Array<readonly [string, string, string]> = configHeaders(config).map(
    ([name, value], index) => [`rampart-config-${index + 1}`, name, value] as const,
  );
  if (auth !== null && auth.type !== 'form') {
    headers.push(
      auth.type === 'header'
        ? ['rampart-authentication', auth.headerName, auth.headerValue]
        : ['rampart-authentication', 'Cookie', `${auth.cookieName}=${auth.cookieValue}`],
    );
  }
  if (headers.length === 0) {
    return [];
  }
  return [
    {
      type: 'replacer',
      parameters: { deleteAllRules: true },
      rules: headers.map(([description, header, value]) => ({
        description,
        url: insideOriginRegex(origin),
        matchType: 'req_header',
        matchString: header,
        matchRegex: false,
        replacementString: value,
        tokenProcessing: false,
      })),
    },
  ];
}

/**
 * The plan as plain data.
 * @example buildZapPlan(zapOptionsWithDefaults({}), target, { reportDir: '/w', reportFile: 'report.json' }).jobs
 */
export function buildZapPlan(
  options: ZapOptions,
  target: ScanTarget,
  context: ZapPlanContext,
): { readonly env: Mapping; readonly jobs: readonly Mapping[] } {
  const url = targetUrl(target);
  const auth = checkedAuthentication(options, target);
  const parts = planParts(options);
  const budget = POLICY[options.scanPolicy];
  const user: Mapping = auth?.type === 'form' ? { user: ZAP_USER_NAME } : {};
  const scope: Mapping = { context: ZAP_CONTEXT_NAME, ...user };
  const env: Mapping = {
    contexts: [
      {
        name: ZAP_CONTEXT_NAME,
        urls: [url.href],
        includePaths: [...parts.includePaths],
        excludePaths: [
          outsideOriginRegex(url.origin),
          ...parts.excludePaths,
          ...(context.config?.exclude ?? []).map((pattern) => excludedUrlRegex(pattern, url.href)),
        ],
        ...(auth === null ? {} : formAuthentication(auth)),
      },
    ],
    parameters: {
      // A failed job (an unreachable page) must not stop the plan before the report job: ZAP
      // still exits 1, and the runner reports an engine error with what was found.
      failOnError: false,
      failOnWarning: false,
      // "Job spider started" / "finished" on stdout: the progress lines.
      progressToStdout: true,
    },
  };
  const jobs: Mapping[] = [
    ...headerJob(auth, context.config, url.origin),
    {
      type: 'spider',
      parameters: {
        ...scope,
        url: url.href,
        maxDepth: options.spiderMaxDepth,
        maxDuration: budget.spiderMinutes,
      },
    },
    ...(parts.ajaxSpider
      ? [
          {
            type: 'spiderAjax',
            parameters: {
              ...scope,
              url: url.href,
              maxCrawlDepth: options.spiderMaxDepth,
              maxDuration: budget.ajaxSpiderMinutes,
            },
          },
        ]
      : []),
    { type: 'passiveScan-wait', parameters: { maxDuration: budget.passiveWaitMinutes } },
    ...(parts.activeScan
      ? [
          {
            type: 'activeScan',
            parameters: {
              ...scope,
              maxRuleDurationInMins: budget.activeRuleMinutes,
              maxScanDurationInMins: budget.activeScanMinutes,
            },
            policyDefinition: {
              defaultStrength: budget.strength,
              defaultThreshold: budget.threshold,
            },
          },
        ]
      : []),
    {
      type: 'report',
      parameters: {
        template: ZAP_REPORT_TEMPLATE,
        reportDir: context.reportDir,
        reportFile: context.reportFile,
        reportTitle: 'Rampart ZAP scan',
      },
      // Only the target's site: a page can make the AJAX spider's browser load other sites,
      // whose passive alerts are not about the target.
      sites: [url.origin],
    },
  ];
  return { env, jobs };
}

/** The plan as the YAML text ZAP reads (`-autorun`). */
export function renderZapPlan(
  options: ZapOptions,
  target: ScanTarget,
  context: ZapPlanContext,
): string {
  const plan = buildZapPlan(options, target, context);
  return renderYaml({ env: plan.env, jobs: plan.jobs });
}
