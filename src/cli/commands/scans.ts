/**
 * `rampart scan`, `rampart scans list|get|cancel|findings|diff`, `rampart results` and `rampart
 * engines`: start a scan (and wait for it, gating a pipeline with --fail-on), read scans, their
 * findings and what changed since a base scan, and download their results.
 */
import { writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { operations, RampartClient, Schema } from '../../client/index.js';
import { unwrap } from '../../client/index.js';
import { progressLine } from '../progress.js';
import {
  CliError,
  type CommandResult,
  collect,
  details,
  EXIT_ERROR,
  EXIT_FAIL_ON,
  type PageOptions,
  pageLine,
  pageQuery,
  parseKeyValues,
  type RunContext,
  runner,
  table,
  withPageOptions,
} from '../runner.js';

type Scan = Schema<'Scan'>;
type ListQuery = NonNullable<operations['listScans']['parameters']['query']>;
type CreateScanBody = operations['createScan']['requestBody']['content']['application/json'];

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
type Severity = (typeof SEVERITIES)[number];
const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;
const STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
const FORMATS = ['json', 'sarif', 'csv', 'defectdojo'] as const;

/** Findings of a scan at or above `severity` (the findings summary counts them). */
export function findingsAtOrAbove(summary: Scan['findingsSummary'], severity: Severity): number {
  const threshold = SEVERITIES.indexOf(severity);
  return SEVERITIES.slice(0, threshold + 1).reduce((sum, level) => sum + summary[level], 0);
}

const SCAN_COLUMNS = ['id', 'scanType', 'status', 'progress', 'target', 'riskScore', 'createdAt'];

function scanLines(scan: Scan): string[] {
  const { options: _options, config: _config, ...shown } = scan;
  return details(shown);
}

async function getScan(client: RampartClient, scanId: string): Promise<Scan> {
  return (await unwrap(client.GET('/api/v1/scans/{scanId}', { params: { path: { scanId } } }))).data
    .scan;
}

/** Polls until the scan ends, showing its progress on stderr (progress.ts). */
async function waitForEnd(ctx: RunContext, scanId: string): Promise<Scan> {
  const progress = progressLine(process.stderr);
  const lineOf = (scan: Scan) => `${scan.id} ${scan.status} ${scan.progress}%`;
  let current = await getScan(ctx.client(), scanId);
  for (let everyMs = 100; !ENDED.has(current.status); everyMs = Math.min(everyMs * 2, 1000)) {
    progress.show(lineOf(current));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    current = await getScan(ctx.client(), current.id);
  }
  progress.end(lineOf(current));
  return current;
}

interface ScanOptions {
  readonly engine?: string;
  readonly option?: string[];
  readonly priority?: string;
  readonly template?: string;
  readonly name?: string;
  readonly tag?: string[];
  readonly wait?: boolean;
  readonly failOn?: Severity;
}

async function startScan(
  ctx: RunContext,
  target: string,
  opts: ScanOptions,
): Promise<CommandResult> {
  const body: Record<string, unknown> = { target };
  if (opts.engine !== undefined) {
    body.scanType = opts.engine;
  }
  if (opts.option !== undefined) {
    body.options = parseKeyValues(opts.option);
  }
  if (opts.priority !== undefined) {
    body.priority = opts.priority;
  }
  if (opts.template !== undefined) {
    body.templateId = opts.template;
  }
  if (opts.name !== undefined) {
    body.name = opts.name;
  }
  if (opts.tag !== undefined) {
    body.tags = opts.tag;
  }
  if (opts.failOn !== undefined && opts.wait !== true) {
    throw new CliError('--fail-on needs --wait');
  }
  // The body comes from the command line; the service validates it against the engine's schema
  // (the per-engine union of CreateScanBody cannot be built from strings without a cast).
  const created = await unwrap(
    ctx.client().POST('/api/v1/scans', { body: body as CreateScanBody as never }),
  );
  const scan = created.data;
  if (opts.wait !== true) {
    return { data: { scan }, lines: [`scan ${scan.id} ${scan.status}`] };
  }
  const ended = await waitForEnd(ctx, scan.id);
  const lines = scanLines(ended);
  if (ended.status !== 'completed') {
    const why = ended.error ? `: ${ended.error.code}: ${ended.error.message}` : '';
    ctx.note(`scan ${ended.id} ${ended.status}${why}`);
    return { data: { scan: ended }, lines, exitCode: EXIT_ERROR };
  }
  if (opts.failOn !== undefined) {
    const count = findingsAtOrAbove(ended.findingsSummary, opts.failOn);
    if (count > 0) {
      ctx.note(`${count} finding(s) at or above ${opts.failOn}`);
      return { data: { scan: ended }, lines, exitCode: EXIT_FAIL_ON };
    }
  }
  return { data: { scan: ended }, lines };
}

/** One page of a scan's results as JSON (format=json answers the envelope, never text). */
async function resultsPage(client: RampartClient, scanId: string, page: number) {
  const answer = await unwrap(
    client.GET('/api/v1/scans/{scanId}/results', {
      params: { path: { scanId }, query: { format: 'json', page, limit: 100 } },
    }),
  );
  if (typeof answer === 'string' || !('data' in answer)) {
    throw new CliError('results: the service answered format=json with something else');
  }
  return answer.data;
}

interface ResultsOptions {
  readonly format: (typeof FORMATS)[number];
  readonly output?: string;
}

async function downloadResults(
  ctx: RunContext,
  scanId: string,
  opts: ResultsOptions,
): Promise<CommandResult> {
  const client = ctx.client();
  if (opts.format !== 'json') {
    const text = await unwrap(
      client.GET('/api/v1/scans/{scanId}/results', {
        params: { path: { scanId }, query: { format: opts.format } },
        parseAs: 'text',
      }),
    );
    if (opts.output !== undefined) {
      writeFileSync(opts.output, text);
      ctx.note(`wrote ${opts.output}`);
      return { data: { scanId, format: opts.format, file: opts.output }, lines: [] };
    }
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    return { data: null, lines: [], printed: true };
  }
  // Every page of findings, as one answer.
  const first = await resultsPage(client, scanId, 1);
  const findings = [...first.findings];
  for (let page = 2; page <= first.pagination.totalPages; page++) {
    findings.push(...(await resultsPage(client, scanId, page)).findings);
  }
  const { pagination: _pagination, ...rest } = first;
  const data = { ...rest, findings };
  if (opts.output !== undefined) {
    writeFileSync(opts.output, `${JSON.stringify(data, null, 2)}\n`);
    ctx.note(`wrote ${opts.output}`);
    return { data: { scanId, format: 'json', file: opts.output }, lines: [] };
  }
  const rows = findings.map((finding) => ({
    severity: finding.severity,
    title: finding.title,
    ruleId: finding.ruleId,
  }));
  return {
    data,
    lines: [
      `scan ${data.scanId} ${data.status}${data.partial ? ' (partial)' : ''} risk ${data.riskScore}`,
      ...table(rows, ['severity', 'title', 'ruleId']),
    ],
  };
}

export function registerScans(program: Command): void {
  program
    .command('scan')
    .description('start a scan; --wait follows it to the end')
    .argument('<target>', 'URL, host, domain, IP or CIDR')
    .option('--engine <engine>', 'scan engine (scanType), e.g. nmap')
    .option('--option <key=value>', 'engine option: key=string or key:=json (repeatable)', collect)
    .addOption(new Option('--priority <priority>', 'queue priority').choices(PRIORITIES))
    .option('--template <templateId>', 'start from a scan template')
    .option('--name <name>', 'scan name')
    .option('--tag <tag>', 'tag (repeatable)', collect)
    .option('--wait', 'wait until the scan ends, showing progress')
    .addOption(
      new Option('--fail-on <severity>', 'with --wait: exit 3 on a finding at or above').choices(
        SEVERITIES,
      ),
    )
    .action(runner((ctx, target: string, opts: ScanOptions) => startScan(ctx, target, opts)));

  const scans = program.command('scans').description('list, read and cancel scans');
  withPageOptions(
    scans
      .command('list')
      .description('list scans')
      .option('--engine <engine>', 'only this engine ("all" for every engine)')
      .addOption(new Option('--status <status>', 'only this status').choices(STATUSES))
      .option('--parent <scanId>', "a sentinel scan's child scans (all engines)"),
  ).action(
    runner(
      async (
        ctx,
        opts: PageOptions & { engine?: string; status?: Scan['status']; parent?: string },
      ) => {
        const query = {
          // The engine name is checked by the service (INVALID_SCAN_TYPE).
          ...(opts.engine !== undefined ? { scanType: opts.engine as ListQuery['scanType'] } : {}),
          ...(opts.status !== undefined ? { status: opts.status } : {}),
          ...(opts.parent !== undefined ? { parentScanId: opts.parent } : {}),
          ...pageQuery(opts),
        };
        const { data } = await unwrap(ctx.client().GET('/api/v1/scans', { params: { query } }));
        return {
          data,
          lines: [...table(data.scans, SCAN_COLUMNS), pageLine(data.pagination, 'scans')],
        };
      },
    ),
  );
  scans
    .command('get')
    .description('show a scan')
    .argument('<scanId>')
    .action(
      runner(async (ctx, scanId: string) => {
        const scan = await getScan(ctx.client(), scanId);
        return { data: { scan }, lines: scanLines(scan) };
      }),
    );
  scans
    .command('cancel')
    .description('cancel a queued or running scan')
    .argument('<scanId>')
    .action(
      runner(async (ctx, scanId: string) => {
        const { data } = await unwrap(
          ctx.client().POST('/api/v1/scans/{scanId}/cancel', { params: { path: { scanId } } }),
        );
        return { data, lines: [`scan ${scanId} cancel requested`] };
      }),
    );

  withPageOptions(
    scans
      .command('findings')
      .description("a scan's findings, a page at a time")
      .argument('<scanId>')
      .addOption(new Option('--severity <severity>', 'only this severity').choices(SEVERITIES)),
  ).action(
    runner(async (ctx, scanId: string, opts: PageOptions & { severity?: Severity }) => {
      const query = {
        ...(opts.severity !== undefined ? { severity: opts.severity } : {}),
        ...pageQuery(opts),
      };
      const { data } = await unwrap(
        ctx.client().GET('/api/v1/scans/{scanId}/findings', {
          params: { path: { scanId }, query },
        }),
      );
      return {
        data,
        lines: [
          ...table(data.findings, ['id', 'severity', 'title', 'ruleId']),
          pageLine(data.pagination, 'findings'),
        ],
      };
    }),
  );
  scans
    .command('diff')
    .description('what changed with an ended scan: its issues against a base scan')
    .argument('<scanId>')
    .option(
      '--base <scanId>',
      'an ended scan of the same target and engine (default: the latest completed before it)',
    )
    .action(
      runner(async (ctx, scanId: string, opts: { base?: string }) => {
        const { data } = await unwrap(
          ctx.client().GET('/api/v1/scans/{scanId}/diff', {
            params: { path: { scanId }, query: opts.base !== undefined ? { base: opts.base } : {} },
          }),
        );
        const lines = [`scan ${data.scanId} against ${data.baseScanId ?? '(no base scan)'}`];
        for (const change of ['new', 'reopened', 'fixed', 'unchanged'] as const) {
          lines.push(`${change}: ${data[change].length}`);
          if (data[change].length > 0) {
            lines.push(
              ...table(data[change], ['id', 'severity', 'title']).map((row) => `  ${row}`),
            );
          }
        }
        return { data, lines };
      }),
    );

  program
    .command('engines')
    .description('the scan engines, whether a worker runs them now, and their options')
    .action(
      runner(async (ctx) => {
        const { data } = await unwrap(ctx.client().GET('/api/v1/engines'));
        return {
          data,
          lines: table(data.engines, ['name', 'available', 'version', 'sandboxed', 'targetTypes']),
        };
      }),
    );

  program
    .command('results')
    .description("download a scan's results")
    .argument('<scanId>')
    .addOption(new Option('--format <format>', 'result format').choices(FORMATS).default('json'))
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action(
      runner((ctx, scanId: string, opts: ResultsOptions) => downloadResults(ctx, scanId, opts)),
    );
}
