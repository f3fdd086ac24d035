import { Type } from '@sinclair/typebox';

/** The specification's defaults; the schema and `sqlmapOptionsWithDefaults` both read them here. */
const DEFAULTS = {
  level: 1,
  risk: 1,
  technique: 'BEUSTQ',
  dbs: false,
  batch: true,
} as const satisfies SqlmapOptions;

/**
 * sqlmap options (specification, "Engine options"). Keep level <= 3 and risk <= 2 on production.
 *
 * `technique` is one to six of the letters B, E, U, S, T, Q (each at most once: boolean-based
 * blind, error-based, UNION query, stacked queries, time-based blind, inline queries), so the
 * value can never be an option or carry anything else. `batch` only accepts `true`: a worker has no
 * terminal and no stdin, so a sqlmap waiting for answers could only hang until its timeout; the
 * option is kept (with its specification default) so requests naming it stay valid.
 */
export const sqlmapOptionsSchema = Type.Object(
  {
    level: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, default: DEFAULTS.level, description: '1 to 5' }),
    ),
    risk: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3, default: DEFAULTS.risk, description: '1 to 3' }),
    ),
    technique: Type.Optional(
      Type.String({
        pattern: '^(?!.*(.).*\\1)[BEUSTQ]{1,6}$',
        default: DEFAULTS.technique,
        description:
          'Injection techniques, each letter at most once: B boolean-based blind, E error-based, U UNION query, S stacked queries, T time-based blind, Q inline queries',
      }),
    ),
    dbs: Type.Optional(
      Type.Boolean({ default: DEFAULTS.dbs, description: 'Enumerate database names' }),
    ),
    batch: Type.Optional(
      Type.Boolean({
        enum: [true],
        default: DEFAULTS.batch,
        description: 'Non-interactive; always true (scans run without a terminal)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** sqlmap options with every default applied: what `buildSqlmapArgv` takes. */
export interface SqlmapOptions {
  readonly level: number;
  readonly risk: number;
  readonly technique: string;
  readonly dbs: boolean;
  /** Always true after validation (see the schema). */
  readonly batch: boolean;
}

function integerOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : fallback;
}

/**
 * Typed sqlmap options from an `options` object that already passed `sqlmapOptionsSchema`;
 * absent fields get the specification's defaults. The type checks only narrow `unknown`: they do
 * not replace validation.
 * @example sqlmapOptionsWithDefaults({ level: 3 }).technique // 'BEUSTQ'
 */
export function sqlmapOptionsWithDefaults(input: Record<string, unknown>): SqlmapOptions {
  return {
    level: integerOr(input.level, DEFAULTS.level),
    risk: integerOr(input.risk, DEFAULTS.risk),
    technique: typeof input.technique === 'string' ? input.technique : DEFAULTS.technique,
    dbs: typeof input.dbs === 'boolean' ? input.dbs : DEFAULTS.dbs,
    batch: typeof input.batch === 'boolean' ? input.batch : DEFAULTS.batch,
  };
}
