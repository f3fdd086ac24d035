import type { ToolEngine } from '../engine.js';
import { webConfigOf, webConfigProblem, webConfigSchema } from '../web-config.js';
import { buildSqlmapArgv, SQLMAP_OUTPUT_DIR } from './argv.js';
import { hasSqlmapConfig, SQLMAP_CONFIG_FILE, sqlmapConfigFile } from './config.js';
import { sqlmapFailure } from './failure.js';
import { sqlmapOptionsSchema, sqlmapOptionsWithDefaults } from './options.js';
import { createSqlmapParser, parseSqlmapReport } from './parse.js';
import { parseSqlmapProgress } from './progress.js';

export const sqlmapEngine: ToolEngine = {
  kind: 'tool',
  name: 'sqlmap',
  description: 'SQL injection detection',
  targetTypes: ['url'],
  binary: 'sqlmap',
  versionArgs: ['--version'],
  optionsSchema: sqlmapOptionsSchema,
  configSchema: webConfigSchema,
  configProblem: webConfigProblem,
  defaultTimeoutSeconds: 3600,
  command: {
    // One log per target host (`out/127.0.0.1/log`); every match is read, in name order.
    reportFile: `${SQLMAP_OUTPUT_DIR}/*/log`,
    buildArgv: (options, target, context) =>
      buildSqlmapArgv(sqlmapOptionsWithDefaults({ ...options }), target, {
        workDir: context.workDir,
        config: webConfigOf(context.config),
      }),
    inputFiles: (_options, target, context) => {
      const config = webConfigOf(context.config);
      return hasSqlmapConfig(config)
        ? [{ path: SQLMAP_CONFIG_FILE, content: sqlmapConfigFile(config, target.value) }]
        : [];
    },
    parse: (report, context) => parseSqlmapReport(report, context),
    createParser: (context) => createSqlmapParser(context),
    // sqlmap writes its log lines to stdout; stderr only ever gets Python's own crash output.
    progress: (line, stream) => (stream === 'stdout' ? parseSqlmapProgress(line) : null),
    // sqlmap exits 0 after a run, also when nothing was injectable or the target could not be
    // reached; 1 when it quit on an error (a 404 start page, bad options), 255 when it crashed.
    // A Python tool: unbuffered, so its progress lines arrive as they are printed.
    env: { PYTHONUNBUFFERED: '1' },
    successExitCodes: [0],
    // …so an unreachable target or a URL without parameters (exit 0, empty log) is told apart
    // from a clean run by sqlmap's own [CRITICAL] verdict on stdout.
    failure: (line, stream) => (stream === 'stdout' ? sqlmapFailure(line) : null),
  },
};
