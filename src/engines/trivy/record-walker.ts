/**
 * The streaming walk over a trivy JSON report: finds every record (`…Results.*.Vulnerabilities.*`
 * and the other three lists) in any of the four shapes (see parse.ts) and hands each one on with
 * where it sits (its result's `Target`/`Class`/`Type`, its Kubernetes resource). It also watches
 * the document's shape, its syntax and the resources trivy could not scan, and words those as
 * warnings. Free of I/O; what a record means is `records.ts`'s business.
 *
 * Memory: @streamparser/json emits each record as it completes and, with `keepStack: false`,
 * drops it from its parent; values on no selected path (`Packages`, `Metadata`, the
 * misconfigurations' source lines) are dropped as they complete too. What stays is one record at a
 * time (a few when they come before their `Target`), and the few scalars that locate records.
 */

import type { ParsedElementInfo } from '@streamparser/json';
import { JSONParser, TokenType } from '@streamparser/json';
import {
  isNode,
  type JsonNode,
  RECORD_KINDS,
  type RecordKind,
  type RecordPlace,
  text,
} from './records.js';

/** Where a walked record sits: a `RecordPlace` without the scan's location. */
export type RecordPosition = Omit<RecordPlace, 'location'>;

/** A streaming walker: `write` chunks of the report in order, then `end` once. */
export interface RecordWalker {
  write(chunk: string): void;
  end(): WalkSummary;
}

export interface WalkSummary {
  /** Values on a record path that were not objects: records without an id. */
  readonly malformedRecords: number;
  /** Shape, syntax and unscanned-resource warnings, in that order. */
  readonly warnings: readonly string[];
}

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

const newResult = (): ResultInfo => ({
  targetSeen: false,
  target: null,
  resultClass: null,
  resultType: null,
});

const newResource = (): ResourceInfo => ({
  nameSeen: false,
  namespace: null,
  kind: null,
  name: null,
  error: null,
});

/** The entry of `key` in `map`, made by `fresh` the first time it is asked for. */
function entryFor<T>(map: Map<string, T>, key: string, fresh: () => T): T {
  const known = map.get(key);
  if (known !== undefined) {
    return known;
  }
  const created = fresh();
  map.set(key, created);
  return created;
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

/**
 * A streaming walker over trivy JSON (any of the four shapes) that calls `onRecord` for every
 * record object, in document order, once what locates it has been read (or, failing that, when
 * the report moves on to another result). Never throws: empty, non-JSON, cut-off or foreign input
 * gives what could be read, and the summary says what was wrong.
 */
export function createRecordWalker(
  onRecord: (kind: RecordKind, record: JsonNode, position: RecordPosition) => void,
): RecordWalker {
  const json = new JSONParser({ paths: [...SELECTORS], keepStack: false });
  let root: RootKind = 'none';
  let depth = 0;
  let expectTopKey = false;
  const topKeys = new Set<string>();
  let syntaxError: string | null = null;
  /** Whether the root object or array was closed (what follows it, if anything, is garbage). */
  let rootClosed = false;
  let summary: WalkSummary | null = null;
  /** Whether anything but whitespace was written (a bare number is only tokenized at the end). */
  let wroteText = false;
  let records = 0;
  let malformedRecords = 0;

  const results = new Map<string, ResultInfo>();
  const resources = new Map<string, ResourceInfo>();
  const pending: PendingRecord[] = [];

  function emit(item: PendingRecord): void {
    const result = results.get(item.result);
    onRecord(item.kind, item.record, {
      target: result?.target ?? null,
      resultClass: result?.resultClass ?? null,
      resultType: result?.resultType ?? null,
      resource: item.unit === '' ? null : resourceName(resources.get(item.unit)),
    });
  }

  function flushPending(): void {
    for (const item of pending.splice(0)) {
      emit(item);
    }
  }

  /** Whether everything that locates `item` has been read. */
  function isPlaced(item: PendingRecord): boolean {
    return (
      results.get(item.result)?.targetSeen === true &&
      (item.unit === '' || resources.get(item.unit)?.nameSeen === true)
    );
  }

  /** Hands on the waiting records that are now placed, in order. */
  function emitPlaced(): void {
    let next = pending[0];
    while (next !== undefined && isPlaced(next)) {
      pending.shift();
      emit(next);
      next = pending[0];
    }
  }

  /**
   * Records normally follow their result's `Target` and their resource's `Name` (trivy writes Go
   * struct fields in order), and are handed on at once. A record read before them waits; when the
   * report moves on to another result it is handed on with whatever is known by then.
   */
  function onRecordValue(item: PendingRecord): void {
    records += 1;
    const last = pending[pending.length - 1];
    if (last !== undefined && last.result !== item.result) {
      flushPending();
    }
    if (pending.length === 0 && isPlaced(item)) {
      emit(item);
    } else {
      pending.push(item);
    }
  }

  function onValue({ value, key, stack }: ParsedElementInfo): void {
    const keys = [...stack.slice(1).map((element) => element.key), key];
    const event = classify(root, keys);
    if (event === null) {
      return;
    }
    if (event.type === 'record') {
      if (isNode(value)) {
        onRecordValue({ kind: event.kind, record: value, unit: event.unit, result: event.result });
      } else {
        records += 1;
        malformedRecords += 1;
      }
      return;
    }
    if (event.type === 'result-field') {
      const info = entryFor(results, event.result, newResult);
      if (event.field === 'Target') {
        info.targetSeen = true;
        info.target = text(value);
      } else if (event.field === 'Class') {
        info.resultClass = text(value);
      } else {
        info.resultType = text(value);
      }
    } else {
      const resource = entryFor(resources, event.unit, newResource);
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
    emitPlaced();
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
      if (summary !== null || syntaxError !== null || chunk === '') {
        return;
      }
      wroteText ||= chunk.trim() !== '';
      json.write(chunk);
    },
    end(): WalkSummary {
      if (summary === null) {
        if (syntaxError === null && !json.isEnded && wroteText) {
          json.end();
        }
        flushPending();
        summary = {
          malformedRecords,
          warnings: [...shapeWarnings(), ...syntaxWarnings(), ...resourceWarnings()],
        };
      }
      return summary;
    },
  };
}
