/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for the metrics
 * tests. No maintained parser package is installed here (none is in node_modules), so this one is
 * small and refuses anything the format does not allow: a sample whose family has no `# TYPE`
 * before it, a second `# TYPE` or `# HELP` for one family, a malformed name, label set, escape or
 * value, a series twice, a histogram without its `+Inf` bucket or with buckets that decrease or
 * disagree with `_count`.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string | null;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export class ExpositionError extends Error {
  constructor(line: number, reason: string) {
    super(`line ${line}: ${reason}`);
  }
}

/**
 * A sample value as Prometheus reads it (Go's strconv.ParseFloat): a decimal float, or Inf,
 * Infinity and NaN in any letter case with an optional sign (prom-client writes NaN as `Nan`).
 */
function parseValue(raw: string, line: number): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(raw);
  if (special !== null) {
    if ((special[2] ?? '').toLowerCase() === 'nan') {
      return Number.NaN;
    }
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) {
    throw new ExpositionError(line, `not a number: ${raw}`);
  }
  return Number(raw);
}

/** The label set after `{`, up to and including `}`; returns the labels and the rest. */
function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let at = 0;
  for (;;) {
    if (text[at] === '}') {
      return { labels, rest: text.slice(at + 1) };
    }
    const eq = text.indexOf('=', at);
    if (eq < 0) {
      throw new ExpositionError(line, 'label without =');
    }
    const name = text.slice(at, eq);
    if (!LABEL_NAME.test(name)) {
      throw new ExpositionError(line, `bad label name ${JSON.stringify(name)}`);
    }
    if (name in labels) {
      throw new ExpositionError(line, `label ${name} twice`);
    }
    if (text[eq + 1] !== '"') {
      throw new ExpositionError(line, `label ${name} value not quoted`);
    }
    let value = '';
    let i = eq + 2;
    for (;;) {
      const char = text[i];
      if (char === undefined) {
        throw new ExpositionError(line, `label ${name} value not closed`);
      }
      if (char === '"') {
        break;
      }
      if (char === '\\') {
        const next = text[i + 1];
        if (next === 'n') {
          value += '\n';
        } else if (next === '\\' || next === '"') {
          value += next;
        } else {
          throw new ExpositionError(line, `bad escape \\${next ?? ''} in label ${name}`);
        }
        i += 2;
        continue;
      }
      value += char;
      i += 1;
    }
    labels[name] = value;
    at = i + 1;
    if (text[at] === ',') {
      at += 1;
    } else if (text[at] !== '}') {
      throw new ExpositionError(line, `expected , or } after label ${name}`);
    }
  }
}

/** The family a sample belongs to: its own name, or a histogram's/summary's without the suffix. */
function familyOf(name: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const own = families.get(name);
  if (own !== undefined) {
    return own;
  }
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const family = families.get(base);
  if (family === undefined) {
    return undefined;
  }
  const suffix = name.slice(base.length);
  const allowed =
    family.type === 'histogram'
      ? ['_bucket', '_sum', '_count']
      : family.type === 'summary'
        ? ['_sum', '_count']
        : [];
  return allowed.includes(suffix) ? family : undefined;
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const helps = new Map<string, string>();
  const series = new Set<string>();
  if (text.length > 0 && !text.endsWith('\n')) {
    throw new ExpositionError(0, 'the exposition must end with a newline');
  }
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') {
      return;
    }
    if (raw.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (meta === null) {
        return; // a plain comment
      }
      const [, kind, name = '', rest = ''] = meta;
      if (!NAME.test(name)) {
        throw new ExpositionError(line, `bad metric name ${name}`);
      }
      if (kind === 'HELP') {
        if (helps.has(name)) {
          throw new ExpositionError(line, `second HELP for ${name}`);
        }
        helps.set(name, rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\'));
        const family = families.get(name);
        if (family !== undefined) {
          families.set(name, { ...family, help: helps.get(name) ?? null });
        }
        return;
      }
      if (families.has(name)) {
        throw new ExpositionError(line, `second TYPE for ${name}`);
      }
      if (!TYPES.has(rest as MetricType)) {
        throw new ExpositionError(line, `unknown type ${rest}`);
      }
      families.set(name, {
        name,
        type: rest as MetricType,
        help: helps.get(name) ?? null,
        samples: [],
      });
      return;
    }
    const nameMatch = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(raw);
    if (nameMatch === null) {
      throw new ExpositionError(line, `bad sample line ${JSON.stringify(raw)}`);
    }
    const name = nameMatch[1] ?? '';
    let rest = raw.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      ({ labels, rest } = parseLabels(rest.slice(1), line));
    }
    const parts = rest.trim().split(/ +/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) {
      throw new ExpositionError(line, `bad value part ${JSON.stringify(rest)}`);
    }
    const value = parseValue(parts[0] ?? '', line);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) {
      throw new ExpositionError(line, `bad timestamp ${parts[1]}`);
    }
    const family = familyOf(name, families);
    if (family === undefined) {
      throw new ExpositionError(line, `sample ${name} before the TYPE of its family`);
    }
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) {
      throw new ExpositionError(line, `series ${key} twice`);
    }
    series.add(key);
    family.samples.push({ name, labels, value });
  });
  for (const family of families.values()) {
    if (family.type === 'histogram') {
      checkHistogram(family);
    }
  }
  return families;
}

/** Each label set of a histogram: buckets that never decrease, a +Inf bucket equal to _count. */
function checkHistogram(family: MetricFamily): void {
  const groups = new Map<string, Sample[]>();
  const counts = new Map<string, number>();
  for (const sample of family.samples) {
    const { le, ...others } = sample.labels;
    const key = JSON.stringify(Object.entries(others).sort());
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) {
        throw new Error(`${family.name}: a bucket without le`);
      }
      groups.set(key, [...(groups.get(key) ?? []), sample]);
    } else if (sample.name.endsWith('_count')) {
      counts.set(key, sample.value);
    }
  }
  for (const [key, buckets] of groups) {
    const bounds = buckets.map((bucket) => parseValue(bucket.labels.le ?? '', 0));
    for (let i = 1; i < buckets.length; i += 1) {
      if ((bounds[i] ?? 0) <= (bounds[i - 1] ?? 0)) {
        throw new Error(`${family.name} ${key}: bucket bounds not increasing`);
      }
      if ((buckets[i]?.value ?? 0) < (buckets[i - 1]?.value ?? 0)) {
        throw new Error(`${family.name} ${key}: bucket counts decrease`);
      }
    }
    const last = buckets.at(-1);
    if (last?.labels.le !== '+Inf' || last.value !== counts.get(key)) {
      throw new Error(`${family.name} ${key}: the +Inf bucket is missing or differs from _count`);
    }
  }
}

/**
 * The value of the sample `name` whose labels include `labels` (summed when several match, 0 when
 * none does: a counter not yet incremented has no series).
 */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const family = familyOf(name, families);
  if (family === undefined) {
    throw new Error(`no metric family for ${name}`);
  }
  return family.samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}
