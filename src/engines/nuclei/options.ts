import { Type } from '@sinclair/typebox';
import { ToolWords } from '../option-types.js';

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical', 'unknown'];

/** nuclei options (specification, "Engine options"); severities in lower case, default all. */
export const nucleiOptionsSchema = Type.Object(
  {
    templates: Type.Optional(ToolWords('Template categories', ['cves'])),
    severity: Type.Optional(
      Type.Array(Type.String({ enum: SEVERITIES }), {
        maxItems: 6,
        uniqueItems: true,
        default: SEVERITIES,
      }),
    ),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    rateLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 150 })),
    tags: Type.Optional(ToolWords('Run only templates with these tags')),
    excludeTags: Type.Optional(ToolWords('Skip templates with these tags')),
  },
  { additionalProperties: false },
);
