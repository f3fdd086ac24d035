import { describe, expect, it } from 'vitest';
import { SecretUnreadableError } from '../../use-cases/ports/secrets.js';
import { createSecretBox, secretsKeyId } from './secret-box.js';

const oldKey = Buffer.alloc(32, 1);
const newKey = Buffer.alloc(32, 2);
const tenant = '7d0c6a57-5d59-4b38-9f3a-0a4c3b1f9e10';
const otherTenant = '0b0e3f4c-93a5-4a8e-8a8e-43c5d9a3f0a2';

function unreadable(open: () => string): string {
  try {
    open();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretUnreadableError);
    return (error as Error).message;
  }
  throw new Error('it opened');
}

describe('createSecretBox (AES-256-GCM)', () => {
  it('seals into a versioned envelope naming the key, and opens it again', () => {
    const box = createSecretBox(oldKey);
    const sealed = box.seal('hunter2', tenant);
    expect(sealed).toMatch(new RegExp(`^rmpsec:v1:${secretsKeyId(oldKey)}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('hunter2');
    expect(box.isSealed(sealed)).toBe(true);
    expect(box.isSealed('hunter2')).toBe(false);
    expect(box.open(sealed, tenant)).toBe('hunter2');
    // A fresh IV each time: equal credentials do not show as equal.
    expect(box.seal('hunter2', tenant)).not.toBe(sealed);
    expect(box.open(box.seal('pässwörd ✓', tenant), tenant)).toBe('pässwörd ✓');
  });

  it('does not open for another tenant, altered, or with the key id changed', () => {
    const box = createSecretBox(oldKey);
    const sealed = box.seal('hunter2', tenant);
    expect(unreadable(() => box.open(sealed, otherTenant))).toContain('does not authenticate');
    const body = sealed.slice(sealed.lastIndexOf(':') + 1);
    const flipped = `${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21)}`;
    unreadable(() => box.open(sealed.replace(body, flipped), tenant));
    unreadable(() => box.open(sealed.replace(secretsKeyId(oldKey), '00000000'), tenant));
    unreadable(() => box.open('rmpsec:v1:zz', tenant));
  });

  it('rotates: a box with the new key and the old one as previous opens both, seals with the new', () => {
    const before = createSecretBox(oldKey).seal('hunter2', tenant);
    const rotated = createSecretBox(newKey, [oldKey]);
    expect(rotated.open(before, tenant)).toBe('hunter2');
    expect(rotated.isCurrent(before)).toBe(false);
    const after = rotated.seal('hunter2', tenant);
    expect(rotated.isCurrent(after)).toBe(true);
    const newOnly = createSecretBox(newKey);
    expect(newOnly.open(after, tenant)).toBe('hunter2');
    const message = unreadable(() => newOnly.open(before, tenant));
    expect(message).toBe(
      `a stored credential cannot be decrypted: it was sealed with key ${secretsKeyId(oldKey)}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
    );
  });

  it('takes 32-byte keys only', () => {
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow('must be 32 bytes');
    expect(() => createSecretBox(newKey, [Buffer.alloc(31)])).toThrow('must be 32 bytes');
  });
});
