import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { buildZapArgv, inWorkspace } from './argv.js';
import { zapEngine } from './engine.js';

const WORK = '/tmp/rampart-zap-1';
const TARGET: ScanTarget = {
  type: 'url',
  value: 'https://app.example.com/',
  host: 'app.example.com',
  hostIsAddress: false,
};

const EXPECTED = [
  '-cmd',
  '-silent',
  '-nostdout',
  '-dir',
  '/tmp/rampart-zap-1/zap-home',
  '-config',
  'network.localServers.mainProxy.port=0',
  '-autorun',
  '/tmp/rampart-zap-1/plan.yaml',
];

describe('buildZapArgv', () => {
  it('runs the workspace plan inline, with its home in the workspace', () => {
    expect(buildZapArgv(TARGET, { workDir: WORK })).toEqual(EXPECTED);
  });

  it('takes a workspace path with a trailing slash', () => {
    expect(buildZapArgv(TARGET, { workDir: `${WORK}/` })).toEqual(EXPECTED);
  });

  it.each(['host', 'domain', 'ip', 'network', 'image'] as const)('refuses a %s target', (type) => {
    expect(() => buildZapArgv({ ...TARGET, type }, { workDir: WORK })).toThrow(
      `zap does not scan ${type} targets`,
    );
  });
});

describe('zapEngine.command.buildArgv', () => {
  const context = {
    reportPath: `${WORK}/report.json`,
    workDir: WORK,
    privileged: false,
    pin: { address: null, privateTargetsAllowed: false },
  };

  it('is the same whatever the options: neither target nor option nor secret reaches argv', () => {
    const secret = 'S3cr3t-Passw0rd';
    const options = {
      scanPolicy: 'full',
      spiderMaxDepth: 9,
      ajaxSpider: true,
      activeScan: false,
      contextInclude: ['https://app.example.com/api/.*'],
      contextExclude: ['.*logout.*'],
      authentication: {
        type: 'form',
        loginUrl: 'https://app.example.com/login',
        usernameField: 'user',
        passwordField: 'pass',
        username: 'alice',
        password: secret,
      },
    };
    const argv = zapEngine.command?.buildArgv(options, TARGET, context);
    expect(argv).toEqual(EXPECTED);
    expect(argv?.join(' ')).not.toContain(secret);
    expect(argv?.join(' ')).not.toContain('app.example.com');
    expect(zapEngine.command?.buildArgv({}, TARGET, { ...context, privileged: true })).toEqual(
      EXPECTED,
    );
  });

  it('writes the plan to the path argv names', () => {
    const files = zapEngine.command?.inputFiles?.({}, TARGET, context) ?? [];
    expect(files.map((file) => inWorkspace(WORK, file.path))).toEqual([
      EXPECTED[EXPECTED.length - 1],
    ]);
    expect(files[0]?.content).toContain('reportDir: "/tmp/rampart-zap-1"');
    expect(files[0]?.content).toContain('reportFile: "report.json"');
  });
});
