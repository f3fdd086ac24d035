/**
 * Correlation of a sentinel scan's child findings (README, "Correlation"): findings of different
 * engines that share a correlation key are one issue, shown once with every engine that
 * reported it as a source.
 *
 * How: every source's keys (correlation-keys.ts) are computed once; a key links its findings
 * when they come from at least two engines (an engine's own findings are already de-duplicated
 * by fingerprint, and two of its findings are two issues in its own judgment); linked findings
 * are gathered into connected components with a union-find, so the grouping does not depend on
 * the input order; each component becomes one `CorrelatedFinding`. Everything is linear in the
 * number of findings and keys: the output is put in order by a radix sort on a numeric key
 * (radix-order.ts), and only the few sources of one finding are sorted by comparison. Per-source
 * state lives in arrays of small integers (source-table.ts, disjoint-sets.ts), so a million
 * findings cost no object per finding beyond the output itself.
 *
 * Memory: those arrays are plain arrays, not typed arrays. A typed array's memory lies outside
 * V8's heap, and V8 starts a full collection, which marks the whole heap, each time that outside
 * memory has grown by 64 MB since the last one, however large the heap is. Correlating a million
 * findings needs some 60 MB of such lists, so with typed arrays most runs at that size started
 * one (`--trace-incremental-marking`: "external memory pressure") and paid for marking the whole
 * heap (input and output, about 1 GB): the cost per finding grew with the number of findings.
 * Plain arrays of small integers take twice the memory of 32-bit typed arrays, but count
 * towards the heap, whose collections V8 schedules in proportion to its size.
 *
 * Both functions are pure and never modify their input. The output is a fresh array in a fixed
 * order; its findings may share read-only lists (identifiers, references) with the input.
 * A `CorrelatedFinding` given as input is first taken apart into its sources, so
 * `correlate(correlate(x))` equals `correlate(x)`.
 */

import type { FindingIdentifiers } from '../../domain/findings/finding.js';
import { collectKeys, createKeyCache, createKeySink } from './correlation-keys.js';
import { DisjointSets } from './disjoint-sets.js';
import { radixOrder } from './radix-order.js';
import {
  compareOutputs,
  compareSources,
  compareStrings,
  confidenceAt,
  outputKeys,
  type SourceTable,
  sourceTableOf,
} from './source-table.js';
import type { CorrelatedFinding, CorrelationRule, FindingSource, SourceFinding } from './types.js';

/** The keys that linked findings: the rule of each and one finding it linked. */
interface Links {
  readonly rules: CorrelationRule[];
  readonly members: number[];
}

/**
 * Links the sources along their shared keys. A key seen first on one engine's finding waits
 * (with that engine's further findings) until a finding of another engine has it too; from then
 * on it links everything seen with it and everything that comes later.
 *
 * Per key, state lives in parallel arrays indexed by a key number (no object per key): most keys
 * belong to one finding only, and a million findings make hundreds of thousands of keys.
 */
function link(table: SourceTable, sets: DisjointSets): Links {
  const keyNumbers = new Map<string, number>();
  const anchors: number[] = [];
  const engines: number[] = [];
  const linked: boolean[] = [];
  /** Further findings of the anchor's engine; only for the few keys that have them. */
  const waiting = new Map<number, number[]>();
  const links: Links = { rules: [], members: [] };
  const cache = createKeyCache();
  const sink = createKeySink();
  for (let index = 0; index < table.findings.length; index++) {
    const engine = table.engineRank[index] ?? 0;
    sink.count = 0;
    collectKeys(table.findings[index] as SourceFinding, cache, sink);
    for (let k = 0; k < sink.count; k++) {
      const key = sink.keys[k] as string;
      const keyNumber = keyNumbers.get(key);
      if (keyNumber === undefined) {
        keyNumbers.set(key, anchors.length);
        anchors.push(index);
        engines.push(engine);
        linked.push(false);
      } else if (linked[keyNumber] === true) {
        sets.union(anchors[keyNumber] ?? index, index);
      } else if (engines[keyNumber] === engine) {
        const list = waiting.get(keyNumber);
        if (list === undefined) {
          waiting.set(keyNumber, [index]);
        } else {
          list.push(index);
        }
      } else {
        // A second engine: the key now links everything seen with it, and all that comes later.
        sets.union(anchors[keyNumber] ?? index, index);
        for (const member of waiting.get(keyNumber) ?? []) {
          sets.union(member, index);
        }
        waiting.delete(keyNumber);
        linked[keyNumber] = true;
        links.rules.push(sink.rules[k] ?? 'cve');
        links.members.push(index);
      }
    }
  }
  return links;
}

/**
 * The sources grouped, as one list of source numbers cut into groups (no list per group): group
 * `g` is `members[start[g]]` to `members[start[g + 1] - 1]`, its sources in source order, the
 * primary first. Groups are numbered by their first source in the input.
 */
interface Groups {
  readonly count: number;
  readonly start: readonly number[];
  readonly members: readonly number[];
  /** The group of each source. */
  readonly groupOf: readonly number[];
}

function groupsOf(table: SourceTable, sets: DisjointSets): Groups {
  const total = table.findings.length;
  const groupOfRoot = new Array<number>(total).fill(-1);
  const groupOf = new Array<number>(total);
  let count = 0;
  for (let i = 0; i < total; i++) {
    const root = sets.find(i);
    let group = groupOfRoot[root] ?? -1;
    if (group === -1) {
      group = count++;
      groupOfRoot[root] = group;
    }
    groupOf[i] = group;
  }
  const start = new Array<number>(count + 1).fill(0);
  for (let i = 0; i < total; i++) {
    const next = (groupOf[i] ?? 0) + 1;
    start[next] = (start[next] ?? 0) + 1;
  }
  for (let g = 0; g < count; g++) {
    start[g + 1] = (start[g + 1] ?? 0) + (start[g] ?? 0);
  }
  const next = start.slice(0, count);
  const members = new Array<number>(total);
  for (let i = 0; i < total; i++) {
    const group = groupOf[i] ?? 0;
    members[next[group] ?? 0] = i;
    next[group] = (next[group] ?? 0) + 1;
  }
  const bySource = (a: number, b: number) => compareSources(table, a, b);
  for (let g = 0; g < count; g++) {
    const from = start[g] ?? 0;
    const to = start[g + 1] ?? 0;
    if (to - from > 1) {
      const sorted = members.slice(from, to).sort(bySource);
      for (let k = 0; k < sorted.length; k++) {
        members[from + k] = sorted[k] ?? 0;
      }
    }
  }
  return { count, start, members, groupOf };
}

/** One shared empty list: most findings have no CVE, no CWE or no reference. */
const NONE: readonly string[] = Object.freeze([]);

/** Whether the values are sorted (code-unit order) without duplicates. */
function isSortedUnique(values: readonly string[]): boolean {
  for (let i = 1; i < values.length; i++) {
    if (compareStrings(values[i - 1] ?? '', values[i] ?? '') >= 0) {
      return false;
    }
  }
  return true;
}

/** Lists this long or shorter are put in order without a Set or a sort. */
const SMALL_LIST = 16;

/**
 * The values sorted (code-unit order) without duplicates: the list itself when it already is
 * so; short lists by insertion into one new list (a Set and a sort would allocate three).
 */
function sortedUnique(values: readonly string[]): readonly string[] {
  if (values.length === 0) {
    return NONE;
  }
  if (isSortedUnique(values)) {
    return values;
  }
  if (values.length > SMALL_LIST) {
    return [...new Set(values)].sort(compareStrings);
  }
  const sorted: string[] = [];
  for (const value of values) {
    let at = sorted.length;
    while (at > 0 && compareStrings(sorted[at - 1] ?? '', value) > 0) {
      at--;
    }
    if (at > 0 && sorted[at - 1] === value) {
      continue;
    }
    sorted.push(value);
    for (let k = sorted.length - 1; k > at; k--) {
      sorted[k] = sorted[k - 1] ?? '';
    }
    sorted[at] = value;
  }
  return sorted;
}

/**
 * The union of a list over the sources, sorted, without duplicates. A single source's list that
 * already is so is returned as it is (every list here is read-only).
 */
function unionOf(
  sources: readonly FindingSource[],
  pick: (finding: SourceFinding) => readonly string[],
): readonly string[] {
  if (sources.length === 1) {
    return sortedUnique(pick((sources[0] as FindingSource).finding));
  }
  const all: string[] = [];
  for (const { finding } of sources) {
    for (const value of pick(finding)) {
      all.push(value);
    }
  }
  return sortedUnique(all);
}

const pickCves = (finding: SourceFinding) => finding.identifiers.cve;
const pickCwes = (finding: SourceFinding) => finding.identifiers.cwe;
const pickReferences = (finding: SourceFinding) => finding.references;

function identifiersOf(sources: readonly FindingSource[]): FindingIdentifiers {
  const cve = unionOf(sources, pickCves);
  const cwe = unionOf(sources, pickCwes);
  const own = (sources[0] as FindingSource).finding.identifiers;
  // A single source's identifiers that are already in shape are kept as they are.
  return sources.length === 1 && own.cve === cve && own.cwe === cwe ? own : { cve, cwe };
}

function firstText(
  sources: readonly FindingSource[],
  pick: (finding: SourceFinding) => string | null,
): string | null {
  for (const { finding } of sources) {
    const text = pick(finding);
    if (text !== null) {
      return text;
    }
  }
  return null;
}

const pickDescription = (finding: SourceFinding) => finding.description;
const pickEvidence = (finding: SourceFinding) => finding.evidence;
const pickRemediation = (finding: SourceFinding) => finding.remediation;

function sourceAt(table: SourceTable, index: number): FindingSource {
  const finding = table.findings[index] as SourceFinding;
  return {
    engine: finding.engine,
    scanId: finding.scanId,
    findingId: finding.findingId,
    confidence: confidenceAt(table, index),
    finding,
  };
}

/**
 * One finding from its sources, `members[from]` to `members[to - 1]` (source numbers in source
 * order, the primary first): the primary's fields, identifiers and references united, empty
 * texts filled from the other sources.
 */
function merge(
  table: SourceTable,
  members: readonly number[],
  from: number,
  to: number,
  rules: readonly CorrelationRule[],
): CorrelatedFinding {
  // Sized exactly: a list grown by push from empty reserves room for 16 items, and most findings
  // have one source.
  let sources: FindingSource[];
  if (to - from === 1) {
    sources = [sourceAt(table, members[from] ?? 0)];
  } else {
    sources = new Array(to - from);
    for (let k = from; k < to; k++) {
      sources[k - from] = sourceAt(table, members[k] ?? 0);
    }
  }
  const primary = (sources[0] as FindingSource).finding;
  return {
    ruleId: primary.ruleId,
    title: primary.title,
    severity: primary.severity,
    toolSeverity: primary.toolSeverity,
    category: primary.category,
    location: primary.location,
    identifiers: identifiersOf(sources),
    description: firstText(sources, pickDescription),
    evidence: firstText(sources, pickEvidence),
    remediation: firstText(sources, pickRemediation),
    references: unionOf(sources, pickReferences),
    raw: primary.raw,
    fingerprint: primary.fingerprint,
    engine: primary.engine,
    sources,
    correlatedBy: rules,
  };
}

/**
 * Puts built findings in output order, by their primary sources, in linear time: a radix sort
 * on each primary's output key, the rare equal keys by `compareOutputs`. The findings were built
 * in group order, which follows the input (and so its memory); ordering them comes last.
 */
function inOutputOrder(
  table: SourceTable,
  built: readonly CorrelatedFinding[],
  primaries: readonly number[],
): CorrelatedFinding[] {
  const groups = new Array<number>(built.length);
  for (let group = 0; group < built.length; group++) {
    groups[group] = group;
  }
  const { hi, lo } = outputKeys(table, primaries);
  const order = radixOrder(groups, hi, lo, (a, b) =>
    compareOutputs(table, primaries[a] ?? 0, primaries[b] ?? 0),
  );
  const ordered: CorrelatedFinding[] = [];
  for (const group of order) {
    ordered.push(built[group] as CorrelatedFinding);
  }
  return ordered;
}

const NO_RULES: readonly CorrelationRule[] = Object.freeze([]);

/** The rules that linked each group, sorted; only groups of two or more sources have any. */
function rulesByGroup(groups: Groups, links: Links): Map<number, CorrelationRule[]> {
  const byGroup = new Map<number, CorrelationRule[]>();
  for (let i = 0; i < links.rules.length; i++) {
    const group = groups.groupOf[links.members[i] ?? 0] ?? 0;
    const rule = links.rules[i] as CorrelationRule;
    const rules = byGroup.get(group);
    if (rules === undefined) {
      byGroup.set(group, [rule]);
    } else if (!rules.includes(rule)) {
      rules.push(rule);
    }
  }
  for (const rules of byGroup.values()) {
    rules.sort(compareStrings);
  }
  return byGroup;
}

/**
 * Correlates source findings: one `CorrelatedFinding` per group of findings linked by shared
 * correlation keys across engines (a finding that shares nothing stays alone, with
 * `correlatedBy: []`). Sources are in confidence/severity/engine order, the primary first; the
 * output is ordered by severity, primary engine, fingerprint, scanId and findingId, whatever the
 * input order. Correlated findings in the input are taken apart into their sources first.
 * @example correlate([zapXssOnQ, wapitiXssOnQ]) // one finding, sources [wapiti, zap], correlatedBy ['weakness']
 */
export function correlate(
  findings: readonly (SourceFinding | CorrelatedFinding)[],
): CorrelatedFinding[] {
  const table = sourceTableOf(findings);
  const sets = new DisjointSets(table.findings.length);
  const links = link(table, sets);
  const groups = groupsOf(table, sets);
  const rules = rulesByGroup(groups, links);
  const built: CorrelatedFinding[] = new Array(groups.count);
  const primaries = new Array<number>(groups.count);
  for (let g = 0; g < groups.count; g++) {
    const from = groups.start[g] ?? 0;
    const to = groups.start[g + 1] ?? 0;
    primaries[g] = groups.members[from] ?? 0;
    built[g] = merge(table, groups.members, from, to, rules.get(g) ?? NO_RULES);
  }
  return inOutputOrder(table, built, primaries);
}

/**
 * The findings without correlation (the sentinel option `correlate: false`): one
 * `CorrelatedFinding` per source, shaped as `correlate` shapes a finding that shares nothing, in
 * the same output order.
 */
export function uncorrelated(
  findings: readonly (SourceFinding | CorrelatedFinding)[],
): CorrelatedFinding[] {
  const table = sourceTableOf(findings);
  const count = table.findings.length;
  const built: CorrelatedFinding[] = new Array(count);
  const primaries = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    // Every source is a group of its own: `primaries` doubles as the list of members.
    primaries[i] = i;
    built[i] = merge(table, primaries, i, i + 1, NO_RULES);
  }
  return inOutputOrder(table, built, primaries);
}
