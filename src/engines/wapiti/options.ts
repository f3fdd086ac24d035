import { Type } from '@sinclair/typebox';
import { Duration, ToolWords } from '../option-types.js';

/** wapiti options (specification, "Engine options"); no `modules` means all. */
export const wapitiOptionsSchema = Type.Object(
  {
    modules: Type.Optional(ToolWords('Attack modules (default: all)')),
    scope: Type.Optional(
      Type.String({ enum: ['url', 'page', 'folder', 'domain'], default: 'domain' }),
    ),
    maxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, default: 3 })),
    maxTime: Type.Optional(Duration),
  },
  { additionalProperties: false },
);
