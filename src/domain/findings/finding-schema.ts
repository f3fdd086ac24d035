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
    /** Transport (`tcp`, `udp`) for network findings, null otherwise. */
    protocol: NullableString,
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
  severity: SeveritySchema,
  /** The severity as the tool wrote it (`7.5`, `HIGH`, `3`), null when the tool has none. */
  toolSeverity: NullableString,
  /** A short category such as `open-port`, `vulnerability`, `misconfiguration`, `subdomain`. */
  category: Type.String(),
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
