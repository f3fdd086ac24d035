/** The README's receiver snippet is the tested example file, character for character. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('README receiver guide', () => {
  it('shows examples/verify-webhook-signature.js verbatim', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const snippet = readFileSync(
      new URL('../../examples/verify-webhook-signature.js', import.meta.url),
      'utf8',
    );
    expect(readme).toContain(`\`\`\`js\n${snippet.trimEnd()}\n\`\`\``);
  });
});
