/**
 * nikto's JSON report, read as a stream: each item becomes a finding as soon as it is complete, and
 * the parser keeps no item once it is converted, so memory stays flat however many items a host
 * has. A report cut off mid-way (a cancelled or timed-out scan) still yields every complete item.
 *
 * Shapes (FORMATS.md): nikto 2.5 writes `[host, host, …]`; 2.1.6 wrote one bare host object, and
 * for several hosts bare objects one after another (`{…}{…}`). Each host object has `host`, `ip`,
 * `port` (a string), `banner` and `vulnerabilities`, written in that order; each item has `id`,
 * `method`, `url`, `msg`, plus `references` (2.5) or `OSVDB` (2.1.6). The parser accepts
 * concatenated documents (`separator: ''`), so all of these read the same way.
 */
import { JSONParser } from '@streamparser/json';
import type { DraftFinding } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { EMPTY_HOST, type NiktoHost, type NiktoItem, niktoItemOutcome } from './finding.js';

/** Host fields, for a top-level object and for the objects of a top-level array. */
const HOST_FIELDS = ['host', 'ip', 'port', 'banner'] as const;
type HostField = (typeof HOST_FIELDS)[number];

const PATHS = [
  ...HOST_FIELDS.map((field) => `$.${field}`),
  '$.vulnerabilities.*',
  ...HOST_FIELDS.map((field) => `$.*.${field}`),
  '$.*.vulnerabilities.*',
];

/** How much of the start of the report is kept to recognise `[]` and to quote in warnings. */
const HEAD_LENGTH = 64;

function isHostField(key: unknown): key is HostField {
  return typeof key === 'string' && (HOST_FIELDS as readonly string[]).includes(key);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON scalar as text (ids and ports are strings, but older output wrote numbers). */
function scalarText(value: unknown): string | null {
  if (typeof value === 'string') {
    return value;
  }
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

function portNumber(value: unknown): number | null {
  const text = scalarText(value)?.trim() ?? '';
  if (!/^\d{1,5}$/.test(text)) {
    return null;
  }
  const port = Number(text);
  return port <= 65535 ? port : null;
}

/**
 * nikto escapes `"` as `\"` in a message and then JSON-encodes it again, so the decoded text holds
 * a literal backslash before each quote; that is undone here.
 */
function niktoMessage(value: unknown): string {
  return (scalarText(value) ?? '').replaceAll('\\"', '"');
}

/** nikto 2.5 `references`: one string with one or more URLs (or, defensively, a list). */
function referencesOf(value: unknown): string[] {
  const texts = Array.isArray(value) ? value.map(scalarText) : [scalarText(value)];
  return texts.flatMap((text) => (text === null ? [] : text.split(/[\s,]+/).filter(Boolean)));
}

/** One JSON item (an element of `vulnerabilities`) as a `NiktoItem`. */
export function itemFromJson(value: unknown): NiktoItem | null {
  if (!isObject(value)) {
    return null;
  }
  return {
    id: scalarText(value.id) ?? '',
    osvdb: scalarText(value.OSVDB),
    method: scalarText(value.method),
    path: scalarText(value.url),
    message: niktoMessage(value.msg),
    references: referencesOf(value.references),
    link: null,
  };
}

/** What the JSON reader found; the caller adds the format-independent warnings. */
export interface JsonReadResult {
  readonly findings: readonly DraftFinding[];
  readonly warnings: readonly string[];
}

/**
 * A push parser for nikto JSON. `write` never throws: the first syntax error stops reading and is
 * reported by `end` together with the number of items read before it.
 */
export class NiktoJsonReader {
  private readonly parser = new JSONParser({ paths: PATHS, keepStack: false, separator: '' });
  private readonly findings: DraftFinding[] = [];
  private readonly warnings: string[] = [];
  private currentHostObject: unknown = undefined;
  private currentHost: { -readonly [K in keyof NiktoHost]: NiktoHost[K] } = { ...EMPTY_HOST };
  private hostRecords = 0;
  private items = 0;
  private head = '';
  private error: string | null = null;

  constructor(private readonly target: ScanTarget) {
    this.parser.onValue = ({ value, key, parent, stack }) => {
      if (typeof key === 'number') {
        // An element of `vulnerabilities`: its host object is the container above the array.
        this.hostFor(stack[stack.length - 1]?.value);
        this.addItem(value);
      } else if (isHostField(key)) {
        this.hostFor(parent);
        this.setHostField(key, value);
      }
    };
    this.parser.onError = (error: Error) => {
      this.error ??= error.message;
    };
  }

  write(chunk: string): void {
    if (this.head.length < HEAD_LENGTH) {
      this.head += chunk.slice(0, HEAD_LENGTH - this.head.length);
    }
    if (this.error !== null || chunk === '') {
      return;
    }
    try {
      this.parser.write(chunk);
    } catch (error) {
      this.error ??= error instanceof Error ? error.message : String(error);
    }
  }

  end(): JsonReadResult {
    const truncated = this.error === null && !this.finish();
    const warnings = [...this.warnings];
    if (this.error !== null) {
      warnings.push(
        `nikto JSON is malformed (${this.error}): findings come from the ${this.items} item(s) read before that point`,
      );
    } else if (truncated) {
      warnings.push(
        `nikto JSON is truncated (the scan did not finish): findings come from the ${this.items} complete item(s)`,
      );
    }
    if (this.hostRecords === 0 && this.items === 0 && !/^\s*\[\s*\]\s*$/.test(this.head)) {
      warnings.push(
        `the JSON holds no nikto host record (it starts with ${JSON.stringify(this.head.trim().slice(0, 40))})`,
      );
    }
    return { findings: this.findings, warnings };
  }

  /** Ends the parser; false when the document stopped in the middle. */
  private finish(): boolean {
    let complete = true;
    this.parser.onError = () => {
      complete = false;
    };
    try {
      this.parser.end();
    } catch {
      complete = false;
    }
    return complete;
  }

  /** Starts a new host context when a value belongs to a host object not seen before. */
  private hostFor(hostObject: unknown): void {
    if (hostObject !== this.currentHostObject) {
      this.currentHostObject = hostObject;
      this.currentHost = { ...EMPTY_HOST };
      this.hostRecords += 1;
    }
  }

  private setHostField(field: HostField, value: unknown): void {
    if (field === 'port') {
      this.currentHost.port = portNumber(value);
    } else if (field === 'host') {
      this.currentHost.hostname = scalarText(value);
    } else {
      this.currentHost[field] = scalarText(value);
    }
  }

  private addItem(value: unknown): void {
    const item = itemFromJson(value);
    if (item === null) {
      this.warnings.push(
        'nikto JSON has a vulnerability entry that is not an object; it is skipped',
      );
      return;
    }
    this.items += 1;
    const outcome = niktoItemOutcome(item, this.currentHost, this.target);
    if (outcome.kind === 'finding') {
      this.findings.push(outcome.finding);
    } else {
      this.warnings.push(outcome.warning);
    }
  }
}
