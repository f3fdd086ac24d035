import { Type } from '@sinclair/typebox';
import { PortList, ToolWords } from '../option-types.js';

/** Sublist3r options (specification, "Engine options"); no `engines` means all. */
export const sublist3rOptionsSchema = Type.Object(
  {
    engines: Type.Optional(ToolWords('Search engines (default: all)')),
    bruteforce: Type.Optional(Type.Boolean({ default: false })),
    ports: Type.Optional(PortList),
    threads: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  },
  { additionalProperties: false },
);
