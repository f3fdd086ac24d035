import { Type } from '@sinclair/typebox';
import { Duration } from '../option-types.js';

/** nikto options (specification, "Engine options"); `ssl` unset means auto. */
export const niktoOptionsSchema = Type.Object(
  {
    tuning: Type.Optional(
      Type.String({
        pattern: '^[0-9a-ex]{1,20}$',
        default: '123',
        description: 'Nikto tuning categories',
      }),
    ),
    maxTime: Type.Optional(Duration),
    ssl: Type.Optional(Type.Boolean({ description: 'Force SSL; unset: decided by the URL' })),
  },
  { additionalProperties: false },
);
