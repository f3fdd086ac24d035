import { Type } from '@sinclair/typebox';

/** sqlmap options (specification, "Engine options"). Keep level <= 3 and risk <= 2 on production. */
export const sqlmapOptionsSchema = Type.Object(
  {
    level: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1 })),
    risk: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, default: 1 })),
    technique: Type.Optional(Type.String({ pattern: '^[BEUSTQ]{1,6}$', default: 'BEUSTQ' })),
    dbs: Type.Optional(Type.Boolean({ default: false })),
    batch: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
