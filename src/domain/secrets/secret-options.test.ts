import { describe, expect, it } from 'vitest';
import {
  keepMaskedSecrets,
  maskSecretOptions,
  SECRET_MASK,
  secretOptionValues,
} from './secret-options.js';

const zap = {
  scanPolicy: 'standard',
  authentication: {
    type: 'form',
    username: 'alice',
    password: 'hunter2',
    headerValue: 'Bearer x',
    cookieValue: 'sid=1',
  },
  list: [{ password: 'in-array' }],
  password: 42,
};

describe('secret options', () => {
  it('masks every credential string wherever it sits, and nothing else', () => {
    expect(maskSecretOptions(zap)).toEqual({
      scanPolicy: 'standard',
      authentication: {
        type: 'form',
        username: 'alice',
        password: SECRET_MASK,
        headerValue: SECRET_MASK,
        cookieValue: SECRET_MASK,
      },
      list: [{ password: SECRET_MASK }],
      password: 42,
    });
    expect(zap.authentication.password).toBe('hunter2');
    expect(secretOptionValues(zap)).toEqual(['hunter2', 'Bearer x', 'sid=1', 'in-array']);
  });

  it('keeps the stored value where the mask is sent back, and passes new ones through fresh()', () => {
    const stored = { authentication: { type: 'form', password: 'sealed-old', headerValue: 'h' } };
    const kept = keepMaskedSecrets(
      { authentication: { type: 'form', password: SECRET_MASK, headerValue: 'new' } },
      stored,
      (secret) => `sealed(${secret})`,
    );
    expect(kept).toEqual({
      ok: true,
      options: {
        authentication: { type: 'form', password: 'sealed-old', headerValue: 'sealed(new)' },
      },
    });
  });

  it('refuses a mask where nothing is stored, naming the field', () => {
    expect(
      keepMaskedSecrets(
        { authentication: { type: 'header', headerValue: SECRET_MASK } },
        { authentication: { type: 'form', password: 'x' } },
        (secret) => secret,
      ),
    ).toEqual({ ok: false, field: 'options.authentication.headerValue' });
  });
});
