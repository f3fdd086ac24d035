import { Type } from '@sinclair/typebox';

const Patterns = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 512 }), {
    maxItems: 100,
    default: [],
    description,
  });

/** ZAP options (specification, "Engine options"). */
export const zapOptionsSchema = Type.Object(
  {
    scanPolicy: Type.Optional(
      Type.String({ enum: ['light', 'standard', 'full'], default: 'standard' }),
    ),
    spiderMaxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 3 })),
    ajaxSpider: Type.Optional(Type.Boolean({ default: false })),
    activeScan: Type.Optional(Type.Boolean({ default: true })),
    contextInclude: Type.Optional(Patterns('Regex URL patterns in scope')),
    contextExclude: Type.Optional(Patterns('Regex URL patterns out of scope')),
    authentication: Type.Optional(
      Type.Object(
        {
          type: Type.String({ enum: ['form', 'header', 'cookie'] }),
          loginUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
          usernameField: Type.Optional(Type.String({ maxLength: 255 })),
          passwordField: Type.Optional(Type.String({ maxLength: 255 })),
          username: Type.Optional(Type.String({ maxLength: 255 })),
          password: Type.Optional(Type.String({ maxLength: 255 })),
          headerName: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,128}$' })),
          headerValue: Type.Optional(Type.String({ maxLength: 4096 })),
          cookieName: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,128}$' })),
          cookieValue: Type.Optional(Type.String({ maxLength: 4096 })),
        },
        { additionalProperties: false, description: 'Form, header or cookie based authentication' },
      ),
    ),
  },
  { additionalProperties: false },
);
