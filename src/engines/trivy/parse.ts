/**
 * trivy JSON (`--format json`) to findings, as a stream: `createTrivyParser` takes the report in
 * chunks of any size and never holds the whole document. `parseTrivyJson` is the same parser fed
 * one chunk. Deterministic and free of I/O: the worker adds ids and times.
 *
 * Four shapes occur (FORMATS.md), told apart by the first token and the top-level keys:
 * - the literal `null` (old releases with nothing to report): clean, no findings;
 * - a top-level array of results (releases before `SchemaVersion`);
 * - an object with `SchemaVersion` / `ArtifactName` / `Results` (today's image, fs, repo reports);
 * - a Kubernetes report `{ ClusterName, Resources: [{ Namespace, Kind, Name, Results, Error? }] }`,
 *   also the older cluster layout whose top-level `Vulnerabilities` / `Misconfigurations` arrays
 *   hold resources.
 *
 * Memory: @streamparser/json emits each record (`…Results.*.Vulnerabilities.*` and the other
 * three lists) as it completes and, with `keepStack: false`, drops it from its parent; values on
 * no selected path (`Packages`, `Metadata`, the misconfigurations' source lines) are dropped as
 * they complete too. What stays is one record at a time, the few scalars that say where records
 * sit (a result's `Target`/`Class`/`Type`, a resource's `Namespace`/`Kind`/`Name`/`Error`), and
 * the findings themselves. A cut-off report (a cancelled or killed run) keeps every record that
 * was complete before the cut.
 */

import type { ParsedElementInfo } from '@streamparser/json';
import { JSONParser, TokenType } from '@streamparser/json';
import type { DraftFinding, FindingLocation, ParseResult } from '../../domain/findings/finding.js';
import type { ParseContext, StreamingReportParser } from '../engine.js';
import {
  isNode,
  type JsonNode,
  RECORD_KINDS,
  type RecordKind,
  type RecordPlace,
  recordFinding,
  type SkipReason,
  text,
  withAnotherPackagePath,
} from './records.js';

/** Arrays of resources in a cluster report: `Resources`, or the two lists of the older layout. */
const RESOURCE_GROUPS: ReadonlySet<string> = new Set([
  'Resources',
  'Vulnerabilities',
  'Misconfigurations',
]);
const RESULT_FIELDS = ['Target', 'Class', 'Type'] as const;
const RESOURCE_FIELDS = ['Namespace', 'Kind', 'Name', 'Error'] as const;
/** Top-level keys that make an object a trivy report (the rest are ignored). */
const REPORT_KEYS: ReadonlySet<string> = new Set(['SchemaVersion', 'ArtifactName', 'Results']);
const CLUSTER_KEYS: ReadonlySet<string> = new Set([
  'ClusterName',
  'Resources',
  'Vulnerabilities',
  'Misconfigurations',
]);
/** Per-resource scan errors named one by one; more are counted in one line. */
const MAX_RESOURCE_ERRORS = 20;

/**
 * The selectors handed to @streamparser/json: every place a record list or a locating scalar can
 * sit in the four shapes. Values on these paths are emitted; everything else is dropped.
 */
const SELECTORS: readonly string[] = [
  // Array of results (legacy).
  ...RESULT_FIELDS.map((field) => `$.*.${field}`),
  ...RECORD_KINDS.map((kind) => `$.*.${kind}.*`),
  // SchemaVersion 2.
  ...RESULT_FIELDS.map((field) => `$.Results.*.${field}`),
  ...RECORD_KINDS.map((kind) => `$.Results.*.${kind}.*`),
  // Cluster reports.
  ...RESOURCE_FIELDS.map((field) => `$.*.*.${field}`),
  ...RESULT_FIELDS.map((field) => `$.*.*.Results.*.${field}`),
  ...RECORD_KINDS.map((kind) => `$.*.*.Results.*.${kind}.*`),
];

/** The finding location: the repository URL for repository scans, nothing for images (README). */
function scanLocation(context: ParseContext): FindingLocation {
  return {
    host: null,
    port: null,
    protocol: null,
    url: context.target.type === 'url' ? context.target.value : null,
  };
}

type RootKind = 'none' | 'null' | 'array' | 'object' | 'scalar';

/** What an emitted value is, from its key path (`[ 'Results', 3, 'Vulnerabilities', 7 ]`). */
type Event =
  | {
      readonly type: 'record';
      readonly kind: RecordKind;
      readonly unit: string;
      readonly result: string;
    }
  | {
      readonly type: 'result-field';
      readonly field: (typeof RESULT_FIELDS)[number];
      readonly unit: string;
      readonly result: string;
    }
  | {
      readonly type: 'resource-field';
      readonly field: (typeof RESOURCE_FIELDS)[number];
      readonly unit: string;
    };

function isRecordKind(key: unknown): key is RecordKind {
  return typeof key === 'string' && (RECORD_KINDS as readonly string[]).includes(key);
}

function isOneOf<T extends string>(values: readonly T[], key: unknown): key is T {
  return typeof key === 'string' && (values as readonly string[]).includes(key);
}

/**
 * Reads a result-relative tail (`[i, 'Target']` or `[i, 'Secrets', j]`) of a key path; `unit`
 * names the resource (empty outside cluster reports).
 */
function resultEvent(tail: readonly unknown[], unit: string): Event | null {
  const [index, field, item] = tail;
  if (typeof index !== 'number') {
    return null;
  }
  const result = `${unit}#${index}`;
  if (tail.length === 2 && isOneOf(RESULT_FIELDS, field)) {
    return { type: 'result-field', field, unit, result };
  }
  if (tail.length === 3 && isRecordKind(field) && typeof item === 'number') {
    return { type: 'record', kind: field, unit, result };
  }
  return null;
}

/** Classifies a key path for the shape at hand; null for values matched by a wider selector. */
function classify(root: RootKind, keys: readonly unknown[]): Event | null {
  if (root === 'array') {
    return resultEvent(keys, '');
  }
  if (root !== 'object') {
    return null;
  }
  const [first, second, third] = keys;
  if (first === 'Results') {
    return resultEvent(keys.slice(1), '');
  }
  if (typeof first !== 'string' || !RESOURCE_GROUPS.has(first) || typeof second !== 'number') {
    return null;
  }
  const unit = `${first}/${second}`;
  if (keys.length === 3 && isOneOf(RESOURCE_FIELDS, third)) {
    return { type: 'resource-field', field: third, unit };
  }
  return third === 'Results' ? resultEvent(keys.slice(3), unit) : null;
}

interface ResultInfo {
  /** Whether the result's `Target` key has been read (its value may still be unusable). */
  targetSeen: boolean;
  target: string | null;
  resultClass: string | null;
  resultType: string | null;
}

interface ResourceInfo {
  /** Whether the resource's `Name` key has been read. */
  nameSeen: boolean;
  namespace: string | null;
  kind: string | null;
  name: string | null;
  error: string | null;
}

interface PendingRecord {
  readonly kind: RecordKind;
  readonly record: JsonNode;
  readonly unit: string;
  readonly result: string;
}

/** The first line of trivy's per-resource error, kept short for a warning. */
function firstLine(error: string): string {
  const line = error.trim().split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function resourceName(resource: ResourceInfo | undefined): string | null {
  const parts = [resource?.namespace, resource?.kind, resource?.name].filter(
    (part): part is string => typeof part === 'string',
  );
  return parts.length === 0 ? null : parts.join('/');
}

const SKIP_WARNINGS: Readonly<Record<SkipReason, (count: number) => string | null>> = {
  'no-id': (count) => `${count} trivy record(s) without an id were skipped`,
  'not-affected': (count) =>
    `${count} vulnerability record(s) with status not_affected were left out`,
  // PASS and EXCEPTION rows only appear with --include-non-failures, which is never passed.
  'not-failed': () => null,
};

/**
 * A streaming parser of trivy JSON (any of the four shapes). Never throws: empty, non-JSON,
 * cut-off or foreign input gives what could be read plus warnings; resources trivy could not scan
 * (`Error`) are warnings, never clean; misconfiguration PASS rows are not findings.
 */
export function createTrivyParser(context: ParseContext): StreamingReportParser {
  const location = scanLocation(context);
  const json = new JSONParser({ paths: [...SELECTORS], keepStack: false });
  let root: RootKind = 'none';
  let depth = 0;
  let expectTopKey = false;
  const topKeys = new Set<string>();
  let syntaxError: string | null = null;
  /** Whether the root object or array was closed (what follows it, if anything, is garbage). */
  let rootClosed = false;
  let ended = false;
  /** Whether anything but whitespace was written (a bare number is only tokenized at the end). */
  let wroteText = false;
  let records = 0;

  const results = new Map<string, ResultInfo>();
  const resources = new Map<string, ResourceInfo>();
  const pending: PendingRecord[] = [];
  const findings: DraftFinding[] = [];
  /** Vulnerability findings by rule id, to fold further copies of a package into the first. */
  const vulnerabilities = new Map<string, { readonly index: number; seen: number }>();
  const skipped: Record<SkipReason, number> = { 'no-id': 0, 'not-affected': 0, 'not-failed': 0 };

  function build(item: PendingRecord): void {
    const result = results.get(item.result);
    const place: RecordPlace = {
      target: result?.target ?? null,
      resultClass: result?.resultClass ?? null,
      resultType: result?.resultType ?? null,
      resource: item.unit === '' ? null : resourceName(resources.get(item.unit)),
      location,
    };
    const outcome = recordFinding(item.kind, item.record, place);
    if (outcome.finding === undefined) {
      skipped[outcome.skipped] += 1;
      return;
    }
    if (item.kind !== 'Vulnerabilities') {
      findings.push(outcome.finding);
      return;
    }
    const earlier = vulnerabilities.get(outcome.finding.ruleId);
    if (earlier === undefined) {
      vulnerabilities.set(outcome.finding.ruleId, { index: findings.length, seen: 1 });
      findings.push(outcome.finding);
      return;
    }
    earlier.seen += 1;
    const kept = findings[earlier.index];
    if (kept !== undefined) {
      findings[earlier.index] = withAnotherPackagePath(kept, item.record, earlier.seen);
    }
  }

  function flushPending(): void {
    for (const item of pending.splice(0)) {
      build(item);
    }
  }

  /** Whether everything that locates `item` has been read. */
  function isPlaced(item: PendingRecord): boolean {
    return (
      results.get(item.result)?.targetSeen === true &&
      (item.unit === '' || resources.get(item.unit)?.nameSeen === true)
    );
  }

  /** Builds the waiting records that are now placed, in order. */
  function buildPlaced(): void {
    let next = pending[0];
    while (next !== undefined && isPlaced(next)) {
      pending.shift();
      build(next);
      next = pending[0];
    }
  }

  /**
   * Records normally follow their result's `Target` and their resource's `Name` (trivy writes Go
   * struct fields in order), and are built at once. A record read before them waits; when the
   * report moves on to another result it is built with whatever is known by then.
   */
  function onRecord(item: PendingRecord): void {
    records += 1;
    const last = pending[pending.length - 1];
    if (last !== undefined && last.result !== item.result) {
      flushPending();
    }
    if (pending.length === 0 && isPlaced(item)) {
      build(item);
    } else {
      pending.push(item);
    }
  }

  function resultInfo(key: string): ResultInfo {
    const known = results.get(key);
    if (known !== undefined) {
      return known;
    }
    const fresh: ResultInfo = {
      targetSeen: false,
      target: null,
      resultClass: null,
      resultType: null,
    };
    results.set(key, fresh);
    return fresh;
  }

  function resourceInfo(key: string): ResourceInfo {
    const known = resources.get(key);
    if (known !== undefined) {
      return known;
    }
    const fresh: ResourceInfo = {
      nameSeen: false,
      namespace: null,
      kind: null,
      name: null,
      error: null,
    };
    resources.set(key, fresh);
    return fresh;
  }

  function onValue({ value, key, stack }: ParsedElementInfo): void {
    const keys = [...stack.slice(1).map((element) => element.key), key];
    const event = classify(root, keys);
    if (event === null) {
      return;
    }
    if (event.type === 'record') {
      if (isNode(value)) {
        onRecord({ kind: event.kind, record: value, unit: event.unit, result: event.result });
      } else {
        records += 1;
        skipped['no-id'] += 1;
      }
      return;
    }
    if (event.type === 'result-field') {
      const info = resultInfo(event.result);
      if (event.field === 'Target') {
        info.targetSeen = true;
        info.target = text(value);
      } else if (event.field === 'Class') {
        info.resultClass = text(value);
      } else {
        info.resultType = text(value);
      }
    } else {
      const resource = resourceInfo(event.unit);
      const field = text(value, 2000);
      if (event.field === 'Namespace') {
        resource.namespace = field;
      } else if (event.field === 'Kind') {
        resource.kind = field;
      } else if (event.field === 'Name') {
        resource.nameSeen = true;
        resource.name = field;
      } else {
        resource.error = field;
      }
    }
    buildPlaced();
  }

  /** Tracks the root's type and its keys from the token stream (values are never kept). */
  function onToken({ token, value }: { token: TokenType; value: unknown }): void {
    if (root === 'none') {
      root =
        token === TokenType.LEFT_BRACE
          ? 'object'
          : token === TokenType.LEFT_BRACKET
            ? 'array'
            : token === TokenType.NULL
              ? 'null'
              : 'scalar';
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      depth += 1;
      expectTopKey = depth === 1 && token === TokenType.LEFT_BRACE;
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      depth -= 1;
      rootClosed ||= depth === 0;
    } else if (depth === 1 && root === 'object') {
      if (token === TokenType.COMMA) {
        expectTopKey = true;
      } else if (token === TokenType.STRING && expectTopKey) {
        expectTopKey = false;
        if (typeof value === 'string' && (REPORT_KEYS.has(value) || CLUSTER_KEYS.has(value))) {
          topKeys.add(value);
        }
      }
    }
  }

  json.onToken = onToken;
  json.onValue = onValue;
  json.onError = (error: Error) => {
    syntaxError ??= error.message;
  };

  function shapeWarnings(): string[] {
    if (root === 'none') {
      return syntaxError === null ? ['trivy wrote no report (empty output)'] : [];
    }
    if (root === 'scalar') {
      return ['the output is not a trivy report: its JSON is neither an object, an array nor null'];
    }
    const wholeRootRead = syntaxError === null || rootClosed;
    if (root === 'object' && topKeys.size === 0 && records === 0 && wholeRootRead) {
      return ['the output is not a trivy report: no SchemaVersion, Results or Resources'];
    }
    return [];
  }

  function syntaxWarnings(): string[] {
    if (syntaxError === null) {
      return [];
    }
    const reason = syntaxError.length > 200 ? `${syntaxError.slice(0, 200)}…` : syntaxError;
    if (root === 'none' || root === 'scalar') {
      return [`the output is not trivy JSON: ${reason}`];
    }
    return [
      `the trivy report is cut off or damaged (${reason}); ${records} record(s) before that point were read`,
    ];
  }

  function resourceWarnings(): string[] {
    const failed = [...resources.values()].filter((resource) => resource.error !== null);
    const named = failed.slice(0, MAX_RESOURCE_ERRORS).map((resource) => {
      const name = resourceName(resource) ?? 'a resource';
      return `trivy could not scan ${name}: ${firstLine(resource.error ?? '')}`;
    });
    const more = failed.length - named.length;
    return more > 0 ? [...named, `trivy could not scan ${more} more resource(s)`] : named;
  }

  return {
    write(chunk: string): void {
      if (ended || syntaxError !== null || chunk === '') {
        return;
      }
      wroteText ||= chunk.trim() !== '';
      json.write(chunk);
    },
    end(): ParseResult {
      if (!ended) {
        ended = true;
        if (syntaxError === null && !json.isEnded && wroteText) {
          json.end();
        }
        flushPending();
      }
      const skipWarnings = (Object.keys(skipped) as SkipReason[])
        .filter((reason) => skipped[reason] > 0)
        .map((reason) => SKIP_WARNINGS[reason](skipped[reason]))
        .filter((warning): warning is string => warning !== null);
      return {
        findings: [...findings],
        warnings: [...shapeWarnings(), ...syntaxWarnings(), ...resourceWarnings(), ...skipWarnings],
      };
    },
  };
}

/**
 * Parses a whole trivy JSON report: `createTrivyParser` fed the text as one chunk, so both give
 * the same result for any chunking.
 */
export function parseTrivyJson(report: string, context: ParseContext): ParseResult {
  const parser = createTrivyParser(context);
  parser.write(typeof report === 'string' ? report : '');
  return parser.end();
}
