/**
 * The traditional JSON report (`traditional-json` template, also `zap-baseline.py -J`), read as
 * a stream: `{"@programName", "@version", "@generated", "site": [{"@name", "@host", "@port",
 * "@ssl", "alerts": [{…, "instances": [{…}]}]}]}`.
 *
 * Memory stays bounded by one alert: the parser emits only the scalar fields of each alert and
 * its instances one by one (`keepStack: false` drops each from its parent once emitted; no
 * enclosing object is subscribed, so nothing accumulates), each instance is cut down to the six
 * fields we use, and an alert goes to the collector as soon as the next one starts. A report
 * with request and response bodies (`traditional-json-plus`) costs one instance at a time.
 */
import { JSONParser } from '@streamparser/json';
import {
  ALERT_FIELDS,
  type AlertField,
  alertOf,
  capText,
  MAX_ALERT_TEXT,
  MAX_INSTANCE_TEXT,
  MAX_INSTANCES_PER_ALERT,
  type ZapAlert,
  type ZapFindingCollector,
  type ZapInstance,
  type ZapSite,
} from './alerts.js';

const SITE_FIELDS = { '@name': 'name', '@host': 'host', '@port': 'port', '@ssl': 'ssl' } as const;

const INSTANCE_FIELDS = ['uri', 'method', 'param', 'attack', 'evidence', 'otherinfo'] as const;

const PATHS = [
  '$.@programName',
  '$.@version',
  ...Object.keys(SITE_FIELDS).map((key) => `$.site.*.${key}`),
  ...ALERT_FIELDS.map((key) => `$.site.*.alerts.*.${key}`),
  '$.site.*.alerts.*.instances.*',
];

/** A scalar as text ('' for anything else); ZAP writes numbers as strings, older tools not. */
function scalarText(value: unknown, max: number): string {
  if (typeof value === 'string') {
    return capText(value, max);
  }
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

function reducedInstance(value: unknown): ZapInstance | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return null;
  }
  const record = value as Record<string, unknown>;
  const field = (name: (typeof INSTANCE_FIELDS)[number]) =>
    scalarText(record[name], MAX_INSTANCE_TEXT);
  return {
    uri: field('uri'),
    method: field('method'),
    param: field('param'),
    attack: field('attack'),
    evidence: field('evidence'),
    otherinfo: field('otherinfo'),
  };
}

interface PendingAlert {
  readonly site: number;
  readonly index: number;
  readonly fields: Partial<Record<AlertField, string>>;
  readonly instances: ZapInstance[];
  dropped: number;
}

function toAlert(pending: PendingAlert): ZapAlert {
  return alertOf((name) => pending.fields[name] ?? '', [], pending.instances);
}

/** A chunk-independent description of a parser error (never the library's chunk offsets). */
function describeJsonError(error: Error): string {
  if (/ended in/.test(error.message)) {
    return 'it ends before the document is complete';
  }
  const position = /absolute position "(\d+)"/.exec(error.message)?.[1];
  return position === undefined
    ? 'it is not well-formed JSON'
    : `it is not well-formed JSON at character ${position}`;
}

/** Reads one traditional JSON report pushed in chunks into a collector. Never throws. */
export class ZapJsonReader {
  private readonly parser = new JSONParser({ paths: PATHS, keepStack: false });
  private readonly sites = new Map<
    number,
    { name: string; host: string; port: string; ssl: string }
  >();
  private pending: PendingAlert | null = null;
  private recognized = false;
  private completed = false;
  private failure: string | null = null;
  private trailingData = false;

  constructor(private readonly collector: ZapFindingCollector) {
    this.parser.onValue = ({ value, key, stack }) => {
      this.onValue(
        value,
        key,
        stack.map((element) => element.key),
      );
    };
    this.parser.onError = (error: Error) => this.onError(error);
    this.parser.onEnd = () => {
      this.completed = true;
    };
  }

  private onError(error: unknown): void {
    if (this.completed) {
      // The document ended and more followed in the same chunk (JSON lines, for one).
      this.trailingData = true;
    } else {
      this.failure ??= describeJsonError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  write(chunk: string): void {
    if (this.failure !== null) {
      return;
    }
    if (this.completed || this.parser.isEnded) {
      // After the closing brace only whitespace may follow (JSON lines, for one, do not).
      if (chunk.trim() !== '') {
        this.trailingData = true;
      }
      return;
    }
    try {
      this.parser.write(chunk);
    } catch (error) {
      // onError is set, so the parser reports through it; this is the last fence.
      this.onError(error);
    }
  }

  /**
   * Ends the input; returns the reader's warnings and whether a whole ZAP report was read (then
   * a report without sites means ZAP reached nothing).
   */
  end(): { readonly warnings: string[]; readonly complete: boolean } {
    if (this.failure === null && !this.completed && !this.parser.isEnded) {
      try {
        this.parser.end();
      } catch (error) {
        this.onError(error);
      }
    }
    const warnings: string[] = [];
    if (this.failure === null && this.completed) {
      this.flush();
    } else {
      const lost = this.pending === null ? '' : ' (the alert being read then is left out)';
      this.pending = null;
      warnings.push(
        `the ZAP JSON report is cut off or damaged: ${this.failure ?? 'it ends before the document is complete'}; findings come from the ${this.collector.alertCount} alert(s) read completely before that point${lost}`,
      );
    }
    if (this.trailingData) {
      warnings.push('the ZAP JSON report has data after its end; that data was not read');
    }
    if (!this.recognized) {
      warnings.push('the JSON is not a ZAP traditional report: no @version and no site list');
    }
    return { warnings, complete: this.recognized && this.failure === null && this.completed };
  }

  private onValue(value: unknown, key: unknown, path: readonly unknown[]): void {
    // path[0] is the root's (undefined) key; then 'site', site index, 'alerts', alert index, …
    const [, top, siteIndex, alerts, alertIndex, instances] = path;
    if (path.length === 1 && (key === '@version' || key === '@programName')) {
      this.recognized = true;
      return;
    }
    if (top !== 'site' || typeof siteIndex !== 'number') {
      return;
    }
    if (path.length === 3 && typeof key === 'string' && key in SITE_FIELDS) {
      this.recognized = true;
      const site = this.site(siteIndex);
      site[SITE_FIELDS[key as keyof typeof SITE_FIELDS]] = scalarText(value, MAX_INSTANCE_TEXT);
      return;
    }
    if (alerts !== 'alerts' || typeof alertIndex !== 'number') {
      return;
    }
    const pending = this.alert(siteIndex, alertIndex);
    if (path.length === 5 && typeof key === 'string') {
      pending.fields[key as AlertField] = scalarText(value, MAX_ALERT_TEXT);
    } else if (path.length === 6 && instances === 'instances') {
      const instance = reducedInstance(value);
      if (instance === null) {
        return;
      }
      if (pending.instances.length < MAX_INSTANCES_PER_ALERT) {
        pending.instances.push(instance);
      } else {
        pending.dropped += 1;
      }
    }
  }

  private site(index: number): { name: string; host: string; port: string; ssl: string } {
    let site = this.sites.get(index);
    if (site === undefined) {
      site = { name: '', host: '', port: '', ssl: '' };
      this.sites.set(index, site);
      this.collector.addSite();
    }
    return site;
  }

  /** The alert being read; a value of another alert means the previous one is complete. */
  private alert(siteIndex: number, alertIndex: number): PendingAlert {
    const current = this.pending;
    if (current !== null && current.site === siteIndex && current.index === alertIndex) {
      return current;
    }
    this.flush();
    this.recognized = true;
    this.site(siteIndex);
    const next: PendingAlert = {
      site: siteIndex,
      index: alertIndex,
      fields: {},
      instances: [],
      dropped: 0,
    };
    this.pending = next;
    return next;
  }

  private flush(): void {
    const pending = this.pending;
    if (pending === null) {
      return;
    }
    this.pending = null;
    const site: ZapSite | undefined = this.sites.get(pending.site);
    this.collector.addAlert(site ?? null, toAlert(pending));
    if (pending.dropped > 0) {
      this.collector.addDroppedInstances(pending.dropped);
    }
  }
}
