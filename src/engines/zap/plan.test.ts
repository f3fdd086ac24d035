// `yaml` (eemeli/yaml, YAML 1.1 and 1.2) reads the plans back the way ZAP's SnakeYAML would.

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ScanTarget } from '../../domain/targets/target.js';
import { webConfigOf } from '../web-config.js';
import { type ZapOptions, zapOptionsWithDefaults } from './options.js';
import {
  buildZapPlan,
  insideOriginRegex,
  outsideOriginRegex,
  renderZapPlan,
  zapOptionProblems,
} from './plan.js';

const TARGET: ScanTarget = {
  type: 'url',
  value: 'https://app.example.com/',
  host: 'app.example.com',
  hostIsAddress: false,
};
const REPORT = { reportDir: '/tmp/rampart-zap-1', reportFile: 'report.json' };
const DEFAULTS = zapOptionsWithDefaults({});
const options = (overrides: Partial<ZapOptions>): ZapOptions => ({ ...DEFAULTS, ...overrides });

const FORM = {
  type: 'form',
  loginUrl: 'https://app.example.com/login',
  usernameField: 'user[login]',
  passwordField: 'pass',
  username: 'alice',
  password: 'c0rrect horse',
} as const;

describe('renderZapPlan: whole plan files', () => {
  it('defaults: spider, passive wait, standard active scan, JSON report, origin fence', () => {
    expect(renderZapPlan(DEFAULTS, TARGET, REPORT)).toBe(String.raw`env:
  contexts:
    - name: "rampart-target"
      urls:
        - "https://app.example.com/"
      includePaths: []
      excludePaths:
        - "^(?!\\Qhttps://app.example.com/\\E).*"
  parameters:
    failOnError: false
    failOnWarning: false
    progressToStdout: true
jobs:
  - type: "spider"
    parameters:
      context: "rampart-target"
      url: "https://app.example.com/"
      maxDepth: 3
      maxDuration: 10
  - type: "passiveScan-wait"
    parameters:
      maxDuration: 10
  - type: "activeScan"
    parameters:
      context: "rampart-target"
      maxRuleDurationInMins: 10
      maxScanDurationInMins: 60
    policyDefinition:
      defaultStrength: "medium"
      defaultThreshold: "medium"
  - type: "report"
    parameters:
      template: "traditional-json"
      reportDir: "/tmp/rampart-zap-1"
      reportFile: "report.json"
      reportTitle: "Rampart ZAP scan"
    sites:
      - "https://app.example.com"
`);
  });

  it('full policy, AJAX spider, scope regexes and form login as the context user', () => {
    const plan = renderZapPlan(
      options({
        scanPolicy: 'full',
        spiderMaxDepth: 5,
        ajaxSpider: true,
        contextInclude: ['https://app\\.example\\.com/api/.*'],
        contextExclude: ['.*/logout.*', '.*\\.pdf$'],
        authentication: { ...FORM, loginUrl: 'https://app.example.com:8443/login' },
      }),
      { ...TARGET, value: 'https://app.example.com:8443/app/?x=1' },
      REPORT,
    );
    expect(plan).toBe(String.raw`env:
  contexts:
    - name: "rampart-target"
      urls:
        - "https://app.example.com:8443/app/?x=1"
      includePaths:
        - "https://app\\.example\\.com/api/.*"
      excludePaths:
        - "^(?!\\Qhttps://app.example.com:8443/\\E).*"
        - ".*/logout.*"
        - ".*\\.pdf$"
      authentication:
        method: "form"
        parameters:
          loginPageUrl: "https://app.example.com:8443/login"
          loginRequestUrl: "https://app.example.com:8443/login"
          loginRequestBody: "user%5Blogin%5D={%username%}&pass={%password%}"
      users:
        - name: "rampart-user"
          credentials:
            username: "alice"
            password: "c0rrect horse"
  parameters:
    failOnError: false
    failOnWarning: false
    progressToStdout: true
jobs:
  - type: "spider"
    parameters:
      context: "rampart-target"
      user: "rampart-user"
      url: "https://app.example.com:8443/app/?x=1"
      maxDepth: 5
      maxDuration: 20
  - type: "spiderAjax"
    parameters:
      context: "rampart-target"
      user: "rampart-user"
      url: "https://app.example.com:8443/app/?x=1"
      maxCrawlDepth: 5
      maxDuration: 20
  - type: "passiveScan-wait"
    parameters:
      maxDuration: 15
  - type: "activeScan"
    parameters:
      context: "rampart-target"
      user: "rampart-user"
      maxRuleDurationInMins: 15
      maxScanDurationInMins: 55
    policyDefinition:
      defaultStrength: "high"
      defaultThreshold: "low"
  - type: "report"
    parameters:
      template: "traditional-json"
      reportDir: "/tmp/rampart-zap-1"
      reportFile: "report.json"
      reportTitle: "Rampart ZAP scan"
    sites:
      - "https://app.example.com:8443"
`);
  });

  it('header authentication: a replacer rule for the target origin, before the spider', () => {
    const plan = renderZapPlan(
      options({
        scanPolicy: 'light',
        activeScan: false,
        authentication: {
          type: 'header',
          headerName: 'Authorization',
          headerValue: 'Bearer a.b.c',
        },
      }),
      { ...TARGET, value: 'http://10.0.0.5:8080' },
      REPORT,
    );
    expect(plan).toBe(String.raw`env:
  contexts:
    - name: "rampart-target"
      urls:
        - "http://10.0.0.5:8080/"
      includePaths: []
      excludePaths:
        - "^(?!\\Qhttp://10.0.0.5:8080/\\E).*"
  parameters:
    failOnError: false
    failOnWarning: false
    progressToStdout: true
jobs:
  - type: "replacer"
    parameters:
      deleteAllRules: true
    rules:
      - description: "rampart-authentication"
        url: "^\\Qhttp://10.0.0.5:8080/\\E.*"
        matchType: "req_header"
        matchString: "Authorization"
        matchRegex: false
        replacementString: "Bearer a.b.c"
        tokenProcessing: false
  - type: "spider"
    parameters:
      context: "rampart-target"
      url: "http://10.0.0.5:8080/"
      maxDepth: 3
      maxDuration: 5
  - type: "passiveScan-wait"
    parameters:
      maxDuration: 5
  - type: "report"
    parameters:
      template: "traditional-json"
      reportDir: "/tmp/rampart-zap-1"
      reportFile: "report.json"
      reportTitle: "Rampart ZAP scan"
    sites:
      - "http://10.0.0.5:8080"
`);
  });
});

describe('buildZapPlan', () => {
  it('config: one replacer rule per header, cookie, auth and user agent; exclusions in the context', () => {
    const config = webConfigOf({
      headers: { 'X-Api-Key': 'k3y' },
      cookies: { session: 's1', lang: 'en' },
      auth: { type: 'basic', username: 'alice', password: 'pw' },
      userAgent: 'Rampart test',
      exclude: ['/logout*'],
    });
    const plan = buildZapPlan(DEFAULTS, TARGET, { ...REPORT, config });
    const rule = (description: string, header: string, value: string) => ({
      description,
      url: '^\\Qhttps://app.example.com/\\E.*',
      matchType: 'req_header',
      matchString: header,
      matchRegex: false,
      replacementString: value,
      tokenProcessing: false,
    });
    expect(plan.jobs[0]).toEqual({
      type: 'replacer',
      parameters: { deleteAllRules: true },
      rules: [
        rule('rampart-config-1', 'X-Api-Key', 'k3y'),
        rule('rampart-config-2', 'Cookie', 'session=s1; lang=en'),
        rule(
          'rampart-config-3',
          'Authorization',
          `Basic ${Buffer.from('alice:pw').toString('base64')}`,
        ),
        rule('rampart-config-4', 'User-Agent', 'Rampart test'),
      ],
    });
    const [context] = (plan.env.contexts ?? []) as Array<{ excludePaths: string[] }>;
    expect(context?.excludePaths.at(-1)).toBe('https://app\\.example\\.com/logout.*');
    // Rendered into YAML and read back, the values are intact.
    const text = renderZapPlan(DEFAULTS, TARGET, { ...REPORT, config });
    expect(parse(text).jobs[0].rules[1].replacementString).toBe('session=s1; lang=en');
  });

  it('cookie authentication: the Cookie header with name=value, no context user', () => {
    const plan = buildZapPlan(
      options({ authentication: { type: 'cookie', cookieName: 'sid', cookieValue: 'abc123' } }),
      TARGET,
      REPORT,
    );
    expect(plan.jobs[0]).toEqual({
      type: 'replacer',
      parameters: { deleteAllRules: true },
      rules: [
        {
          description: 'rampart-authentication',
          url: '^\\Qhttps://app.example.com/\\E.*',
          matchType: 'req_header',
          matchString: 'Cookie',
          matchRegex: false,
          replacementString: 'sid=abc123',
          tokenProcessing: false,
        },
      ],
    });
    expect(JSON.stringify(plan)).not.toContain('rampart-user');
  });

  it('light policy: low strength, medium threshold, short budgets', () => {
    const plan = buildZapPlan(options({ scanPolicy: 'light' }), TARGET, REPORT);
    expect(plan.jobs.find((job) => job.type === 'activeScan')).toEqual({
      type: 'activeScan',
      parameters: {
        context: 'rampart-target',
        maxRuleDurationInMins: 2,
        maxScanDurationInMins: 15,
      },
      policyDefinition: { defaultStrength: 'low', defaultThreshold: 'medium' },
    });
  });

  it('keeps every policy under the default timeout of 7200 s, all jobs at their limits', () => {
    for (const scanPolicy of ['light', 'standard', 'full'] as const) {
      const plan = buildZapPlan(
        options({ scanPolicy, ajaxSpider: true, activeScan: true }),
        TARGET,
        REPORT,
      );
      const minutes = plan.jobs.reduce((sum, job) => {
        const p = job.parameters as Record<string, number>;
        return sum + (p.maxDuration ?? 0) + (p.maxScanDurationInMins ?? 0);
      }, 0);
      expect(minutes, scanPolicy).toBeLessThanOrEqual(115);
    }
  });

  it('encodes braces in the target URL, which ZAP would read as $\u007bvariables}', () => {
    const text = renderZapPlan(
      DEFAULTS,
      { ...TARGET, value: 'https://app.example.com/a?q=$\u007bPATH}' },
      REPORT,
    );
    expect(text).not.toContain('$\u007b');
    expect(text).toContain('"https://app.example.com/a?q=$%7BPATH%7D"');
  });

  it.each(['host', 'domain', 'ip'] as const)('refuses a %s target', (type) => {
    expect(() => buildZapPlan(DEFAULTS, { ...TARGET, type }, REPORT)).toThrow(
      `zap does not scan ${type} targets`,
    );
  });

  it('refuses what the schema cannot catch: incomplete or foreign-origin authentication', () => {
    expect(() =>
      buildZapPlan(
        options({ authentication: { type: 'header', headerName: 'X-Key' } }),
        TARGET,
        REPORT,
      ),
    ).toThrow('zap options cannot run: authentication of type header needs headerValue');
    expect(() =>
      buildZapPlan(
        options({ authentication: { ...FORM, loginUrl: 'http://169.254.169.254/login' } }),
        TARGET,
        REPORT,
      ),
    ).toThrow("authentication.loginUrl must be on the target's origin https://app.example.com");
  });
});

describe('zapOptionProblems', () => {
  it.each<[string, Partial<ZapOptions>, string[]]>([
    ['no authentication', {}, []],
    ['complete form login on the origin', { authentication: FORM }, []],
    [
      'cookie without value',
      { authentication: { type: 'cookie', cookieName: 's' } },
      ['authentication of type cookie needs cookieValue'],
    ],
    [
      'login on another port',
      { authentication: { ...FORM, loginUrl: 'https://app.example.com:444/login' } },
      ["authentication.loginUrl must be on the target's origin https://app.example.com"],
    ],
    [
      '$\u007b in a regex',
      { contextExclude: ['$\u007bHOME}'] },
      ['option values must not contain $\u007b (ZAP would substitute a variable)'],
    ],
    [
      '$\u007b in a password',
      { authentication: { ...FORM, password: 'a$\u007bb}' } },
      ['option values must not contain $\u007b (ZAP would substitute a variable)'],
    ],
  ])('%s', (_name, overrides, problems) => {
    expect(zapOptionProblems(options(overrides), TARGET)).toEqual(problems);
  });
});

describe('origin regexes', () => {
  it('quote the origin literally', () => {
    expect(outsideOriginRegex('https://a.example')).toBe('^(?!\\Qhttps://a.example/\\E).*');
    expect(insideOriginRegex('http://10.0.0.5:8080')).toBe('^\\Qhttp://10.0.0.5:8080/\\E.*');
  });

  // Java's \Q…\E is not JavaScript syntax; the same regexes with the origin escaped by hand
  // show what they match.
  it('fence every URL outside the origin, including look-alike hosts', () => {
    const outside = /^(?!https:\/\/a\.example\/).*/;
    expect(outside.test('https://a.example/x')).toBe(false);
    expect(outside.test('https://a.example.evil.org/')).toBe(true);
    expect(outside.test('http://a.example/')).toBe(true);
    expect(outside.test('http://169.254.169.254/latest/')).toBe(true);
  });
});

/** Injection-shaped values: each must stay one string value of the plan, read back unchanged. */
const NASTY = [
  '-x',
  '--help',
  'a b',
  'a\tb',
  'a;id',
  'a\nb',
  'a\r\nb',
  '$(id)',
  '`id`',
  '../../etc/passwd',
  'a,b',
  `a'b"c`,
  'a>b<c',
  '*',
  '"\njobs:\n  - type: "script"',
  '#comment',
  ': ',
  '- item',
  '\u0000',
  '\u2028',
  ' leading',
  'x'.repeat(10_000),
];

describe('plan quoting', () => {
  it.each(NASTY.map((value) => [JSON.stringify(value).slice(0, 30), value]))(
    '%s as password, header value and regexes stays one value of the same plan',
    (_name, value) => {
      for (const authentication of [
        { ...FORM, password: value, username: value },
        { type: 'header' as const, headerName: 'X-Key', headerValue: value },
      ]) {
        const opts = options({
          contextInclude: [value],
          contextExclude: [value],
          authentication,
        });
        const expected = buildZapPlan(opts, TARGET, REPORT);
        const text = renderZapPlan(opts, TARGET, REPORT);
        for (const version of ['1.1', '1.2'] as const) {
          expect(parse(text, { version })).toEqual(JSON.parse(JSON.stringify(expected)));
        }
        // Still exactly the jobs we built: no value added a job, a key or a line.
        const parsed = parse(text) as { jobs: Array<{ type: string }> };
        expect(parsed.jobs.map((job) => job.type)).toEqual(expected.jobs.map((job) => job.type));
        expect(text.split('\n')).toHaveLength(
          renderZapPlan(
            options({
              contextInclude: ['a'],
              contextExclude: ['a'],
              authentication:
                authentication.type === 'form'
                  ? { ...FORM, password: 'a', username: 'a' }
                  : { ...authentication, headerValue: 'a' },
            }),
            TARGET,
            REPORT,
          ).split('\n').length,
        );
      }
    },
  );
});
