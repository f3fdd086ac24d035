import { Type } from '@sinclair/typebox';

/**
 * What trivy can look for (`--scanners`). `misconfig` was called `config` until late 2023
 * (aquasecurity/trivy#5558); current releases still take `config` as an alias, so the new name is
 * used and trivy older than that rename is not supported.
 */
export const TRIVY_SCANNERS = ['vuln', 'misconfig', 'secret', 'license'] as const;
export type TrivyScanner = (typeof TRIVY_SCANNERS)[number];

/** trivy's own severity names, least severe first (`--severity`). */
export const TRIVY_SEVERITIES = ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type TrivySeverity = (typeof TRIVY_SEVERITIES)[number];

/** The specification's defaults; the schema and `trivyOptionsWithDefaults` both read them here. */
const DEFAULTS = {
  scanners: ['vuln'],
  severity: ['CRITICAL', 'HIGH', 'MEDIUM'],
  ignoreUnfixed: false,
} as const satisfies Partial<TrivyOptions>;

/**
 * A path or glob inside the scanned image or repository, for `--skip-dirs` / `--skip-files`:
 * - letters, digits and `_ . / * ? @ + -` only: no whitespace or control characters, no quotes,
 *   no `$`, `;`, `|`, `&` or backticks (no shell is involved, but nothing odd reaches argv either);
 * - no comma: trivy reads these flags as comma-separated lists (pflag `StringSlice`), so `a,b`
 *   would silently become two entries;
 * - no leading `-` (never mistaken for a flag, even though each value is glued to its flag with `=`);
 * - no `..` path segment (the values only ever name something to skip, but a path that climbs out
 *   of the artifact is never meaningful, so it is refused rather than passed on);
 * - at most 255 characters.
 * `*` and `?` stay allowed because trivy takes glob patterns here (`**\/node_modules`).
 */
export const TrivyPath = Type.String({
  pattern: '^(?!-)(?!(?:.*/)?\\.\\.(?:/|$))[A-Za-z0-9_./*?@+-]{1,255}$',
  description: 'Path or glob in the artifact; no leading -, no .. segment, no spaces or commas',
});

const Paths = (description: string) =>
  Type.Array(TrivyPath, { maxItems: 100, default: [], description });

/** trivy options (specification, "Engine options"); severities in upper case. */
export const trivyOptionsSchema = Type.Object(
  {
    scanners: Type.Optional(
      Type.Array(Type.String({ enum: [...TRIVY_SCANNERS] }), {
        minItems: 1,
        maxItems: TRIVY_SCANNERS.length,
        uniqueItems: true,
        default: [...DEFAULTS.scanners],
      }),
    ),
    severity: Type.Optional(
      Type.Array(Type.String({ enum: [...TRIVY_SEVERITIES] }), {
        minItems: 1,
        maxItems: TRIVY_SEVERITIES.length,
        uniqueItems: true,
        default: [...DEFAULTS.severity],
      }),
    ),
    ignoreUnfixed: Type.Optional(Type.Boolean({ default: DEFAULTS.ignoreUnfixed })),
    skipDirs: Type.Optional(Paths('Directories (or globs) to skip')),
    skipFiles: Type.Optional(Paths('Files (or globs) to skip')),
  },
  { additionalProperties: false },
);

/** trivy options with every default applied: what `buildTrivyArgv` takes. */
export interface TrivyOptions {
  readonly scanners: readonly TrivyScanner[];
  readonly severity: readonly TrivySeverity[];
  readonly ignoreUnfixed: boolean;
  readonly skipDirs: readonly string[];
  readonly skipFiles: readonly string[];
}

function member<T extends string>(allowed: readonly T[]): (value: unknown) => value is T {
  return (value: unknown): value is T =>
    typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

const isScanner = member(TRIVY_SCANNERS);
const isSeverity = member(TRIVY_SEVERITIES);

/** The members of `value` that pass `keep`, or `fallback` when none do (or it is no array). */
function listOf<T>(
  value: unknown,
  keep: (item: unknown) => item is T,
  fallback: readonly T[],
): T[] {
  const items = Array.isArray(value) ? value.filter(keep) : [];
  return items.length === 0 ? [...fallback] : items;
}

const isString = (item: unknown): item is string => typeof item === 'string';

/**
 * Typed trivy options from an `options` object that already passed `trivyOptionsSchema`; absent
 * fields get the specification's defaults. The type checks only narrow `unknown`: they do not
 * replace validation.
 * @example trivyOptionsWithDefaults({ ignoreUnfixed: true }).severity // ['CRITICAL', 'HIGH', 'MEDIUM']
 */
export function trivyOptionsWithDefaults(input: Record<string, unknown>): TrivyOptions {
  return {
    scanners: listOf(input.scanners, isScanner, DEFAULTS.scanners),
    severity: listOf(input.severity, isSeverity, DEFAULTS.severity),
    ignoreUnfixed:
      typeof input.ignoreUnfixed === 'boolean' ? input.ignoreUnfixed : DEFAULTS.ignoreUnfixed,
    skipDirs: listOf(input.skipDirs, isString, []),
    skipFiles: listOf(input.skipFiles, isString, []),
  };
}
