import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret } from './webhook-secret.js';

describe('generateWebhookSecret', () => {
  it('has the shape whsec_ and 32 base62 characters', () => {
    expect(generateWebhookSecret(randomBytes)).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
  });

  it('differs every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, () => generateWebhookSecret(randomBytes)));
    expect(secrets.size).toBe(100);
  });
});
