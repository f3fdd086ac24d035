import { Type } from '@sinclair/typebox';
import { Duration } from '../option-types.js';

/**
 * nikto's `-Tuning` letters (nikto 2.5 `-Help`): 0 file upload, 1 interesting files, 2
 * misconfiguration / default files, 3 information disclosure, 4 injection (XSS/script/HTML),
 * 5 remote file retrieval inside the web root, 6 denial of service, 7 remote file retrieval server
 * wide, 8 command execution, 9 SQL injection, a authentication bypass, b software identification,
 * c remote source inclusion, d web service, e administrative console, x reverse (all except the
 * letters given). Nothing else: no dash, space or shell character can reach argv.
 */
export const NiktoTuning = Type.String({
  pattern: '^[0-9a-ex]{1,20}$',
  description:
    'Nikto tuning categories: 0-9, a-e, x to invert (e.g. 123: interesting files, misconfiguration, information disclosure)',
});

/** The specification's defaults; the schema and `niktoOptionsWithDefaults` both read them here. */
const DEFAULTS = {
  tuning: '123',
} as const satisfies Partial<NiktoOptions>;

/** nikto options (specification, "Engine options"); `ssl` unset means nikto decides. */
export const niktoOptionsSchema = Type.Object(
  {
    tuning: Type.Optional({ ...NiktoTuning, default: DEFAULTS.tuning }),
    maxTime: Type.Optional({
      ...Duration,
      description: 'Maximum testing time for the host (nikto -maxtime), e.g. 600s, 10m or 1h',
    }),
    ssl: Type.Optional(
      Type.Boolean({
        description:
          'true: only HTTPS (-ssl); false: only plain HTTP (-nossl); unset: nikto tries both',
      }),
    ),
  },
  { additionalProperties: false },
);

/** nikto options with every default applied: what `buildNiktoArgv` takes. */
export interface NiktoOptions {
  readonly tuning: string;
  /** `-maxtime`; undefined: no limit of nikto's own (the scan timeout still applies). */
  readonly maxTime: string | undefined;
  /** true `-ssl`, false `-nossl`, undefined: neither (nikto probes HTTP, then HTTPS). */
  readonly ssl: boolean | undefined;
}

/**
 * Typed nikto options from an `options` object that already passed `niktoOptionsSchema`; absent
 * fields get the specification's defaults. The type checks only narrow `unknown`: they do not
 * replace validation.
 * @example niktoOptionsWithDefaults({ ssl: true }) // { tuning: '123', maxTime: undefined, ssl: true }
 */
export function niktoOptionsWithDefaults(input: Record<string, unknown>): NiktoOptions {
  return {
    tuning: typeof input.tuning === 'string' ? input.tuning : DEFAULTS.tuning,
    maxTime: typeof input.maxTime === 'string' ? input.maxTime : undefined,
    ssl: typeof input.ssl === 'boolean' ? input.ssl : undefined,
  };
}
