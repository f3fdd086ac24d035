/**
 * The runtime schema of a normalized finding, the one list of its fields. The finding types in
 * finding.ts are derived from it, the API's Finding schema is built from it, and the parser tests
 * check every draft against it, so the type, the API and the parsers cannot drift apart.
 *
 * The fields are listed in the API's order (a fingerprinted finding has its fingerprint before its
 * raw record), because the response serializer writes properties in schema order.
 */
import { Type } from '@sinclair/typebox';
import { SEVERITIES, type Severity } from './finding.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** `Type.Unsafe` keeps the plain `{ enum, type }` JSON while typing the value as a Severity. */
export const SeveritySchema = Type.Unsafe<Severity>(Type.String({ enum: [...SEVERITIES] }));

/** Where a finding sits; every part that does not apply is null. */
export const FindingLocationSchema = Type.Object(
  {
    host: NullableString,
    port: Type.Union([Type.Integer(), Type.Null()]),
    /**
     * Transport: `tcp` or `udp` whenever the finding has a URL or a port (every web finding is
     * `tcp`, whichever engine reported it), null only where there is no transport (a subdomain,
     * an OS guess, a package in an image). Set by weakness-severity.ts.
     */
    protocol: Type.Union([Type.String(), Type.Null()], {
      description:
        'Transport: tcp or udp whenever the finding has a URL or a port (every web finding is tcp); null only without one (a subdomain, a package in an image)',
    }),
    url: NullableString,
  },
  { additionalProperties: false },
);

export const FindingIdentifiersSchema = Type.Object(
  {
    /** `CVE-YYYY-NNNN…`, upper case, de-duplicated. */
    cve: Type.Array(Type.String()),
    /** `CWE-NNN`, upper case, de-duplicated. */
    cwe: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

/** Every field of a draft but its raw record. */
const DescribedFields = {
  /**
   * The tool's own stable name for what was found (`open-port`, a CVE id, a ZAP plugin id …).
   * Together with the engine and the location it makes the fingerprint.
   */
  ruleId: Type.String(),
  title: Type.String(),
  /**
   * The common severity: the engine's mapping of the tool's rating, then, for a weakness of the
   * table in weakness-severity.ts, the table's severity (one severity per weakness, whichever
   * engine reported it).
   */
  severity: Type.Unsafe<Severity>(
    Type.String({
      enum: [...SEVERITIES],
      description:
        "The common severity. For a weakness of the table (README, Findings: one severity per weakness; e.g. sql-injection, xss) the table's severity, whichever engine reported it; otherwise the engine's mapping of the tool's rating",
    }),
  ),
  /** The severity as the tool wrote it (`7.5`, `HIGH`, `3`), null when the tool has none. */
  toolSeverity: Type.Union([Type.String(), Type.Null()], {
    description: "The tool's own rating as it wrote it (7.5, HIGH, 3), null when it has none",
  }),
  /**
   * A short category such as `open-port`, `vulnerability`, `misconfiguration`, `subdomain`; a
   * weakness of the table (`sql-injection`, `xss` …) is named by its class for every engine.
   */
  category: Type.String({
    description:
      'A short category: open-port, vulnerability, misconfiguration, subdomain …; a weakness of the table is named by its class for every engine (sql-injection, xss, os-command-injection, path-traversal, …)',
  }),
  location: FindingLocationSchema,
  identifiers: FindingIdentifiersSchema,
  description: NullableString,
  evidence: NullableString,
  remediation: NullableString,
  references: Type.Array(Type.String()),
};

/** The tool's record a finding came from, as plain JSON data. */
const Raw = Type.Unknown({ description: "The tool's own record" });

/** What a parser returns for one finding. */
export const DraftFindingSchema = Type.Object(
  { ...DescribedFields, raw: Raw },
  { additionalProperties: false },
);

/** A draft with its fingerprint: the same issue on a rescan has the same fingerprint. */
export const FingerprintedFindingSchema = Type.Object(
  {
    ...DescribedFields,
    fingerprint: Type.String({ description: 'Stable across rescans of the same issue' }),
    raw: Raw,
  },
  { additionalProperties: false },
);
