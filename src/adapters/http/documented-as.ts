/**
 * For a route whose OpenAPI operation must show more than the schemas it validates and serializes
 * with: `config: { ...documentedAs({ body, response }) }` replaces the body and adds or replaces
 * responses in the document only (@fastify/swagger's per-route `swaggerTransform`). Used where one
 * schema cannot do both jobs: a body typed per engine whose checks must keep the contract's order
 * of error codes (options-by-engine.ts), a file download the JSON serializer never sees.
 */
import type { SwaggerTransform } from '@fastify/swagger';

export function documentedAs(documented: {
  readonly body?: unknown;
  readonly response?: Readonly<Record<number, unknown>>;
}): { swaggerTransform: SwaggerTransform } {
  return {
    swaggerTransform: ({ schema, url }) => ({
      url,
      schema: {
        ...schema,
        ...(documented.body === undefined ? {} : { body: documented.body }),
        response: { ...(schema.response as object | undefined), ...documented.response },
      },
    }),
  };
}
