import { Type } from '@sinclair/typebox';

/**
 * The search engines sublist3r 1.1 (Debian) knows, by the names `-e` takes: the keys of
 * `supported_engines` in `sublist3r.py`, in the order it starts them when `-e` is absent. Any other
 * name is silently skipped by sublist3r, so the schema refuses it instead.
 */
export const SUBLIST3R_ENGINES = [
  'baidu',
  'yahoo',
  'google',
  'bing',
  'ask',
  'netcraft',
  'dnsdumpster',
  'virustotal',
  'threatcrowd',
  'ssl',
  'passivedns',
] as const;
export type Sublist3rSearchEngine = (typeof SUBLIST3R_ENGINES)[number];

/** The specification's defaults; the schema and `sublist3rOptionsWithDefaults` both read them here. */
const DEFAULTS = {
  engines: SUBLIST3R_ENGINES,
  bruteforce: false,
  threads: 10,
} as const satisfies Partial<Sublist3rOptions>;

/** One TCP port, 1 to 65535, without leading zeros. */
const TCP_PORT =
  '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})';

/**
 * What `-p` really takes: sublist3r splits the value on `,` and calls `int()` on each part, so
 * only a comma list of TCP port numbers works. Narrower than the shared `PortList` on purpose:
 * a range (`1-1024`) or a `T:`/`U:` prefix makes `int()` fail inside a bare `except`, and that
 * port is skipped without a word.
 */
export const Sublist3rPortList = Type.String({
  pattern: `^${TCP_PORT}(,${TCP_PORT}){0,99}$`,
  maxLength: 599,
  description: 'Comma-separated TCP ports (1-65535, at most 100), e.g. 80,443; no ranges',
});

/** sublist3r options (specification, "Engine options"). */
export const sublist3rOptionsSchema = Type.Object(
  {
    engines: Type.Optional(
      Type.Array(Type.String({ enum: [...SUBLIST3R_ENGINES] }), {
        minItems: 1,
        maxItems: SUBLIST3R_ENGINES.length,
        uniqueItems: true,
        default: [...DEFAULTS.engines],
        description: `Search engines to query (default: all): ${SUBLIST3R_ENGINES.join(', ')}`,
      }),
    ),
    bruteforce: Type.Optional(
      Type.Boolean({
        default: DEFAULTS.bruteforce,
        description: 'DNS brute force with subbrute (slow; needs outbound DNS)',
      }),
    ),
    ports: Type.Optional(Sublist3rPortList),
    threads: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 50,
        default: DEFAULTS.threads,
        description: 'Brute-force processes',
      }),
    ),
  },
  { additionalProperties: false },
);

/** sublist3r options with every default applied: what `buildSublist3rArgv` takes. */
export interface Sublist3rOptions {
  /** Never empty: the schema asks for at least one, and absent means all. */
  readonly engines: readonly Sublist3rSearchEngine[];
  readonly bruteforce: boolean;
  /** When set, sublist3r probes every name it found on these TCP ports (see README.md). */
  readonly ports: string | undefined;
  readonly threads: number;
}

function isSearchEngine(value: unknown): value is Sublist3rSearchEngine {
  return typeof value === 'string' && (SUBLIST3R_ENGINES as readonly string[]).includes(value);
}

/**
 * Typed sublist3r options from an `options` object that already passed `sublist3rOptionsSchema`;
 * absent fields get the specification's defaults. The type checks only narrow `unknown`: they do
 * not replace validation.
 * @example sublist3rOptionsWithDefaults({ engines: ['ssl'] }).threads // 10
 */
export function sublist3rOptionsWithDefaults(input: Record<string, unknown>): Sublist3rOptions {
  const engines = Array.isArray(input.engines) ? input.engines.filter(isSearchEngine) : [];
  return {
    engines: engines.length === 0 ? [...DEFAULTS.engines] : engines,
    bruteforce: typeof input.bruteforce === 'boolean' ? input.bruteforce : DEFAULTS.bruteforce,
    ports: typeof input.ports === 'string' ? input.ports : undefined,
    threads: typeof input.threads === 'number' ? input.threads : DEFAULTS.threads,
  };
}
