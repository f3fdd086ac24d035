/**
 * The injection table: every injection-shaped value is fed to every string option (top level,
 * list items and nested objects such as ZAP's `authentication`) and to the target of every engine
 * that runs a tool, and none may reach argv unrefused. A value passes when
 *
 * - the option schema refuses it (`checkEngineOptions`) or the target grammar does (`parseTarget`),
 *   or
 * - the argv built with it has exactly the shape of the argv built with a benign value in the same
 *   place: the same number of arguments, and every argument that differs is either not an option
 *   (does not start with `-`: a flag's value or a target after `--`) or the same `--flag=` with a
 *   different value glued on. So the value added no argument, replaced no flag and became no flag.
 *
 * Values that go into an input file instead of argv (ZAP's plan) leave argv unchanged; the engine's
 * own tests check how the file quotes them.
 */
import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/domain/targets/parse-target.js';
import type { ScanTarget, TargetType } from '../../src/domain/targets/target.js';
import type { ToolEngine } from '../../src/engines/engine.js';
import { listEngines } from '../../src/engines/registry.js';
import { checkEngineOptions } from '../../src/engines/validate-options.js';

const NASTY: readonly string[] = [
  '-x',
  '--help',
  '--output=/etc/passwd',
  '-oN/tmp/owned',
  'a b',
  'a\tb',
  'a;id',
  'a\nb',
  'a\r\nb',
  '$(id)',
  '`id`',
  '$\u007bIFS}', // ${IFS}, written so it is not a template placeholder
  '../../etc/passwd',
  '/etc/passwd',
  'a,b',
  'a,-x',
  'a|b&c',
  `a'b"c`,
  'a>b<c',
  '*',
  'x'.repeat(10_000),
  '\u0000',
  ' leading',
  '-',
  '--',
];

/** Benign values tried in order; the first the schema accepts is the baseline. */
const BENIGN: readonly string[] = [
  'a',
  'abc',
  'example',
  'T3',
  '80',
  '80,443',
  '1-1024',
  '123',
  '10m',
  '600s',
  'cves',
  'xss',
  'sql',
  'vuln',
  'google',
  'bing',
  'baidu',
  'username',
  'Authorization',
  'session',
  'node_modules',
  'https://app.example.com/login',
  'light',
  'BEU',
];

const BENIGN_TARGETS: Readonly<Record<TargetType, string>> = {
  // With a path: wapiti's base URL is the origin, the target URL itself one argument.
  url: 'https://app.example.com/shop/',
  domain: 'example.com',
  host: 'scanme',
  ip: '203.0.113.10',
  network: '203.0.113.0/24',
  image: 'alpine:3.19',
};

const NASTY_TARGETS: readonly string[] = [
  ...NASTY,
  'https://app.example.com/?q=$(id)',
  'https://app.example.com/;id',
  'https://app.example.com/?a=1,-x',
  'https://app.example.com/`id`',
  "https://app.example.com/?q=' OR 1=1 --",
  'https://app.example.com/ -x',
  'example.com;id',
  'example.com -x',
  '-oX/tmp/x',
  '--script=http-title',
  'alpine:3.19 --help',
  'alpine:3.19;id',
];

const RUNNABLE: ToolEngine[] = listEngines().filter(
  (engine): engine is ToolEngine => engine.kind === 'tool',
);

/** The address the worker checked for a name target; nmap scans it instead of the name. */
const PINNED_ADDRESS = '198.51.100.7';

const CONTEXT = {
  reportPath: '/tmp/rampart-scan/report',
  workDir: '/tmp/rampart-scan',
  privileged: false,
  pin: { address: PINNED_ADDRESS, privateTargetsAllowed: false },
} as const;

/** Where a string goes: a path of property names; `[]` marks "the items of this list". */
type Slot = readonly string[];

interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, TSchema>>;
  readonly items?: TSchema;
  readonly enum?: readonly string[];
  readonly required?: readonly string[];
}

function node(schema: TSchema): SchemaNode {
  return schema as SchemaNode;
}

/** Every string slot of a schema. */
function stringSlots(schema: TSchema, path: Slot = []): Slot[] {
  const n = node(schema);
  if (n.type === 'string') {
    return [path];
  }
  if (n.type === 'array' && n.items !== undefined) {
    return stringSlots(n.items, [...path, '[]']);
  }
  if (n.type === 'object' && n.properties !== undefined) {
    return Object.entries(n.properties).flatMap(([name, child]) =>
      stringSlots(child, [...path, name]),
    );
  }
  return [];
}

/** The schema found at a slot. */
function schemaAt(schema: TSchema, slot: Slot): TSchema {
  let current = schema;
  for (const part of slot) {
    const n = node(current);
    const next = part === '[]' ? n.items : n.properties?.[part];
    if (next === undefined) {
      throw new Error(`no schema at ${slot.join('.')}`);
    }
    current = next;
  }
  return current;
}

/** Options with `value` placed at `slot`; the parents' other required fields get benign values. */
function optionsWith(engine: ToolEngine, slot: Slot, value: string): Record<string, unknown> {
  const build = (schema: TSchema, rest: Slot): unknown => {
    const [head, ...tail] = rest;
    if (head === undefined) {
      return value;
    }
    if (head === '[]') {
      return [build(node(schema).items as TSchema, tail)];
    }
    const object: Record<string, unknown> = {};
    for (const required of node(schema).required ?? []) {
      if (required !== head) {
        object[required] = benignFor(schema, required);
      }
    }
    object[head] = build(node(schema).properties?.[head] as TSchema, tail);
    return object;
  };
  return build(engine.optionsSchema, slot) as Record<string, unknown>;
}

function benignFor(parent: TSchema, name: string): unknown {
  const child = node(node(parent).properties?.[name] as TSchema);
  return child.enum?.[0] ?? BENIGN[0];
}

/** The first benign value the engine accepts at `slot`, or null. */
function benignValue(engine: ToolEngine, slot: Slot): string | null {
  const candidates = [...(node(schemaAt(engine.optionsSchema, slot)).enum ?? []), ...BENIGN];
  return (
    candidates.find(
      (candidate) => checkEngineOptions(engine, optionsWith(engine, slot, candidate)).ok,
    ) ?? null
  );
}

function benignTarget(engine: ToolEngine): ScanTarget {
  const type = engine.targetTypes[0] as TargetType;
  const parsed = parseTarget(BENIGN_TARGETS[type], type, engine.targetTypes);
  if (!parsed.ok) {
    throw new Error(`benign ${type} target refused: ${parsed.reason}`);
  }
  return parsed.target;
}

function argvFor(
  engine: ToolEngine,
  options: Record<string, unknown>,
  target: ScanTarget,
): string[] {
  const checked = checkEngineOptions(engine, options);
  if (!checked.ok) {
    throw new Error(`options refused: ${checked.error.message}`);
  }
  return engine.command.buildArgv(checked.options, target, CONTEXT);
}

/** The `--flag=` part of an argument, or null. */
function gluedFlag(argument: string): string | null {
  const eq = argument.indexOf('=');
  return argument.startsWith('-') && eq > 1 ? argument.slice(0, eq + 1) : null;
}

/** Why `tainted` is not the same shape as `baseline`, or null when it is. */
function shapeProblem(baseline: readonly string[], tainted: readonly string[]): string | null {
  if (baseline.length !== tainted.length) {
    return `argv has ${tainted.length} arguments instead of ${baseline.length}: ${JSON.stringify(tainted).slice(0, 300)}`;
  }
  for (let i = 0; i < tainted.length; i += 1) {
    const was = baseline[i] as string;
    const is = tainted[i] as string;
    if (was === is || !is.startsWith('-')) {
      continue;
    }
    const flag = gluedFlag(was);
    if (flag === null || !is.startsWith(flag)) {
      return `argument ${i} became an option: ${JSON.stringify(is.slice(0, 80))}`;
    }
  }
  return null;
}

describe('the injection table', () => {
  it('covers every engine value except sentinel (every other engine runs a tool)', () => {
    expect(RUNNABLE.map((engine) => engine.name).sort()).toEqual([
      'harvester',
      'nikto',
      'nmap',
      'nuclei',
      'sqlmap',
      'sublist3r',
      'trivy',
      'wapiti',
      'zap',
    ]);
  });

  describe.each(RUNNABLE.map((engine) => [engine.name, engine] as const))('%s', (_name, engine) => {
    const slots = stringSlots(engine.optionsSchema);

    it.each(slots.map((slot) => [slot.join('.'), slot] as const))(
      'option %s: every injection-shaped value is refused or stays one inert argument',
      (_path, slot) => {
        const benign = benignValue(engine, slot);
        if (benign === null) {
          // No value at all is accepted here (sublist3r's `ports` is refused outright): then
          // every injection-shaped one must be refused too.
          for (const value of NASTY) {
            expect(checkEngineOptions(engine, optionsWith(engine, slot, value)).ok).toBe(false);
          }
          return;
        }
        const target = benignTarget(engine);
        const baseline = argvFor(engine, optionsWith(engine, slot, benign), target);
        for (const value of NASTY) {
          const options = optionsWith(engine, slot, value);
          if (!checkEngineOptions(engine, options).ok) {
            continue;
          }
          const problem = shapeProblem(baseline, argvFor(engine, options, target));
          expect(
            problem,
            `${engine.name} ${slot.join('.')} = ${JSON.stringify(value.slice(0, 40))}`,
          ).toBeNull();
        }
      },
    );

    it.each(engine.targetTypes.map((type) => [type] as const))(
      'target of type %s: every injection-shaped value is refused or stays one inert argument',
      (type) => {
        const benign = parseTarget(BENIGN_TARGETS[type], type, engine.targetTypes);
        expect(benign.ok).toBe(true);
        if (!benign.ok) {
          return;
        }
        const baseline = argvFor(engine, {}, benign.target);
        // The target is one argument (for nmap, a name's checked address instead of the name),
        // or none when it goes into an input file (ZAP's plan).
        const carrying = baseline.filter(
          (argument) => argument.includes(BENIGN_TARGETS[type]) || argument === PINNED_ADDRESS,
        );
        expect(carrying.length).toBeLessThanOrEqual(1);
        if (carrying.length === 0) {
          const files = engine.command.inputFiles?.({}, benign.target, CONTEXT) ?? [];
          expect(files.some((file) => file.content.includes(BENIGN_TARGETS[type]))).toBe(true);
        }
        for (const value of NASTY_TARGETS) {
          for (const given of [type, undefined]) {
            const parsed = parseTarget(value, given, engine.targetTypes);
            if (!parsed.ok || engine.targetProblem?.(parsed.target)) {
              continue;
            }
            expect(value.startsWith('-'), value).toBe(false);
            // Inferred without a type, the value may be of another type than `type` (a URL in
            // trivy's image row): compare with a benign target of that type.
            const reference = parseTarget(
              BENIGN_TARGETS[parsed.target.type],
              parsed.target.type,
              engine.targetTypes,
            );
            const base =
              reference.ok && parsed.target.type !== type
                ? argvFor(engine, {}, reference.target)
                : baseline;
            const problem = shapeProblem(base, argvFor(engine, {}, parsed.target));
            expect(
              problem,
              `${engine.name} target ${JSON.stringify(value.slice(0, 40))}`,
            ).toBeNull();
          }
        }
      },
    );
  });
});
