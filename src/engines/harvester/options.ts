import { Type } from '@sinclair/typebox';
import { ToolWords } from '../option-types.js';

/** theHarvester options (specification, "Engine options"); no `sources` means all public ones. */
export const harvesterOptionsSchema = Type.Object(
  {
    sources: Type.Optional(ToolWords('Data sources (default: all public)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, default: 200 })),
    dnsLookup: Type.Optional(Type.Boolean({ default: false })),
    dnsBrute: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
