import { Type } from '@sinclair/typebox';
import { ENGINE_NAMES } from '../engine.js';

/** sentinel options (specification, "Engine options"); no `engines` means chosen by depth. */
export const sentinelOptionsSchema = Type.Object(
  {
    depth: Type.Optional(Type.String({ enum: ['quick', 'standard', 'deep'], default: 'standard' })),
    engines: Type.Optional(
      Type.Array(Type.String({ enum: ENGINE_NAMES.filter((name) => name !== 'sentinel') }), {
        maxItems: 9,
        uniqueItems: true,
        description: 'Engines to include (default: auto-selected by depth and target)',
      }),
    ),
    correlate: Type.Optional(Type.Boolean({ default: true })),
    riskScore: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
