import { Type } from '@sinclair/typebox';

/** nuclei's template severities (`-severity`), lower case. */
export const NUCLEI_SEVERITIES = ['info', 'low', 'medium', 'high', 'critical', 'unknown'] as const;
export type NucleiSeverity = (typeof NUCLEI_SEVERITIES)[number];

/**
 * Template categories a tenant may choose, and the nuclei-templates directories (layout of
 * nuclei-templates v9.4 and later: protocol first, then category) each one runs. A name, never a
 * path: `-t` also takes absolute paths, `..`, globs and URLs, and nuclei resolves a relative path
 * against its working directory before the templates directory, so a free-form value could run
 * any YAML file on the worker (including `code` templates, which execute commands).
 *
 * Left out on purpose: `code` and `file` (they run on or read the worker itself), `headless`
 * (needs a browser), `dast`/`fuzzing` (intrusive fuzzing), `token-spray` and `osint` (send
 * requests to third-party services, not to the target), `workflows` (may pull any of those in).
 */
export const NUCLEI_TEMPLATE_DIRECTORIES = {
  cves: ['http/cves/', 'network/cves/'],
  vulnerabilities: ['http/vulnerabilities/'],
  exposures: ['http/exposures/'],
  misconfiguration: ['http/misconfiguration/'],
  technologies: ['http/technologies/'],
  'default-logins': ['http/default-logins/'],
  'exposed-panels': ['http/exposed-panels/'],
  takeovers: ['http/takeovers/'],
  cnvd: ['http/cnvd/'],
  iot: ['http/iot/'],
  miscellaneous: ['http/miscellaneous/'],
  network: ['network/'],
  dns: ['dns/'],
  ssl: ['ssl/'],
} as const satisfies Readonly<Record<string, readonly string[]>>;
export type NucleiTemplateCategory = keyof typeof NUCLEI_TEMPLATE_DIRECTORIES;
export const NUCLEI_TEMPLATE_CATEGORIES = Object.keys(
  NUCLEI_TEMPLATE_DIRECTORIES,
) as NucleiTemplateCategory[];

/**
 * A template tag (`cve`, `log4j`, `default-login`, `cve2021`): lower-case letters, digits, `_` and
 * `-`, starting with a letter or digit, at most 64 characters. Narrower than `ToolWord` on
 * purpose: nuclei reads `-tags`/`-etags` as comma-separated lists and, when a value names an
 * existing file, reads the tags from that file, so `,`, `/` and `.` are refused (no second tag
 * smuggled in one item, no path). Published tags are lower case.
 */
export const NucleiTag = Type.String({
  pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
  description: 'Template tag: lower-case letters, digits, _ and -',
});

/** The specification's defaults; the schema and `nucleiOptionsWithDefaults` both read them here. */
const DEFAULTS = {
  templates: ['cves'],
  severity: [...NUCLEI_SEVERITIES],
  concurrency: 25,
  rateLimit: 150,
} as const satisfies Partial<NucleiOptions>;

const Tags = (description: string) =>
  Type.Array(NucleiTag, { maxItems: 100, uniqueItems: true, default: [], description });

/** nuclei options (specification, "Engine options"); severities in lower case, default all. */
export const nucleiOptionsSchema = Type.Object(
  {
    templates: Type.Optional(
      Type.Array(Type.String({ enum: [...NUCLEI_TEMPLATE_CATEGORIES] }), {
        minItems: 1,
        maxItems: NUCLEI_TEMPLATE_CATEGORIES.length,
        uniqueItems: true,
        default: [...DEFAULTS.templates],
        description: 'Template categories (names, not paths)',
      }),
    ),
    // At least one: an empty filter would read as "nothing" to a tenant but run everything.
    severity: Type.Optional(
      Type.Array(Type.String({ enum: [...NUCLEI_SEVERITIES] }), {
        minItems: 1,
        maxItems: NUCLEI_SEVERITIES.length,
        uniqueItems: true,
        default: [...DEFAULTS.severity],
        description: 'Template severities to run (lower case)',
      }),
    ),
    concurrency: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: DEFAULTS.concurrency }),
    ),
    rateLimit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: DEFAULTS.rateLimit }),
    ),
    tags: Type.Optional(Tags('Run only templates with these tags')),
    excludeTags: Type.Optional(Tags('Skip templates with these tags')),
  },
  { additionalProperties: false },
);

/** nuclei options with every default applied: what `buildNucleiArgv` takes. */
export interface NucleiOptions {
  readonly templates: readonly NucleiTemplateCategory[];
  /** At least one (schema); all six by default. */
  readonly severity: readonly NucleiSeverity[];
  readonly concurrency: number;
  readonly rateLimit: number;
  readonly tags: readonly string[];
  readonly excludeTags: readonly string[];
}

function member<T extends string>(allowed: readonly T[]): (value: unknown) => value is T {
  return (value: unknown): value is T =>
    typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

const isCategory = member(NUCLEI_TEMPLATE_CATEGORIES);
const isSeverity = member(NUCLEI_SEVERITIES);
const isString = (item: unknown): item is string => typeof item === 'string';

/** The members of `value` that pass `keep`; `fallback` when `value` is absent (not an array). */
function listOf<T>(
  value: unknown,
  keep: (item: unknown) => item is T,
  fallback: readonly T[],
): T[] {
  return Array.isArray(value) ? value.filter(keep) : [...fallback];
}

function positiveIntegerOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/**
 * Typed nuclei options from an `options` object that already passed `nucleiOptionsSchema`; absent
 * fields get the specification's defaults. The type checks only narrow `unknown`: they do not
 * replace validation.
 * @example nucleiOptionsWithDefaults({ tags: ['log4j'] }).templates // ['cves']
 */
export function nucleiOptionsWithDefaults(input: Record<string, unknown>): NucleiOptions {
  return {
    templates: listOf(input.templates, isCategory, DEFAULTS.templates),
    severity: listOf(input.severity, isSeverity, DEFAULTS.severity),
    concurrency: positiveIntegerOr(input.concurrency, DEFAULTS.concurrency),
    rateLimit: positiveIntegerOr(input.rateLimit, DEFAULTS.rateLimit),
    tags: listOf(input.tags, isString, []),
    excludeTags: listOf(input.excludeTags, isString, []),
  };
}
