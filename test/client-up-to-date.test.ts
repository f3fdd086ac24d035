/**
 * The committed types of the typed client (src/client/schema.ts) are what `npm run
 * client:generate` makes of the OpenAPI document the service serves now: a route schema changed
 * without regenerating fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA_FILE, renderClientSchema } from '../scripts/generate-client.js';

describe('the typed client', () => {
  it('is generated from the current OpenAPI document', async () => {
    const committed = readFileSync(new URL(`../${CLIENT_SCHEMA_FILE}`, import.meta.url), 'utf8');
    const generated = await renderClientSchema();
    if (generated !== committed) {
      const committedLines = committed.split('\n');
      const generatedLines = generated.split('\n');
      const first = generatedLines.findIndex((line, index) => line !== committedLines[index]);
      expect.fail(
        `${CLIENT_SCHEMA_FILE} is out of date with the served OpenAPI document: run npm run client:generate (first difference at line ${first + 1}: ${JSON.stringify(committedLines[first])} should be ${JSON.stringify(generatedLines[first])})`,
      );
    }
  }, 120_000);
});
