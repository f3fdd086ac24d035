import { Type } from '@sinclair/typebox';

const Paths = (description: string) =>
  Type.Array(Type.String({ pattern: '^[^-\\s][^\\s]{0,511}$' }), {
    maxItems: 100,
    default: [],
    description,
  });

/** trivy options (specification, "Engine options"); severities in upper case. */
export const trivyOptionsSchema = Type.Object(
  {
    scanners: Type.Optional(
      Type.Array(Type.String({ enum: ['vuln', 'misconfig', 'secret', 'license'] }), {
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
        default: ['vuln'],
      }),
    ),
    severity: Type.Optional(
      Type.Array(Type.String({ enum: ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] }), {
        minItems: 1,
        maxItems: 5,
        uniqueItems: true,
        default: ['CRITICAL', 'HIGH', 'MEDIUM'],
      }),
    ),
    ignoreUnfixed: Type.Optional(Type.Boolean({ default: false })),
    skipDirs: Type.Optional(Paths('Directories to skip')),
    skipFiles: Type.Optional(Paths('Files to skip')),
  },
  { additionalProperties: false },
);
