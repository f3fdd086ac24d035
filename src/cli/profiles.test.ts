import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configDir, ProfileError, profilesPath, resolveProfile, saveProfile } from './profiles.js';

const made: string[] = [];
function tempConfig(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-profiles-'));
  made.push(dir);
  return { RAMPART_CONFIG_DIR: join(dir, 'rampart') };
}
afterEach(() => {
  for (const dir of made.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('profiles', () => {
  it('uses XDG_CONFIG_HOME/rampart unless RAMPART_CONFIG_DIR is set', () => {
    // env-paths reads process.env itself.
    vi.stubEnv('XDG_CONFIG_HOME', '/x');
    vi.stubEnv('RAMPART_CONFIG_DIR', undefined);
    if (process.platform === 'linux') {
      expect(configDir()).toBe('/x/rampart');
    }
    vi.unstubAllEnvs();
    expect(configDir({ RAMPART_CONFIG_DIR: '/y', XDG_CONFIG_HOME: '/x' })).toBe('/y');
  });

  it('stores profiles by name in a 0600 file in a 0700 directory', () => {
    const env = tempConfig();
    saveProfile('default', { baseUrl: 'http://a', apiKey: 'k1' }, env);
    saveProfile('ci', { baseUrl: 'http://b', token: 't1' }, env);
    expect(statSync(profilesPath(env)).mode & 0o777).toBe(0o600);
    expect(statSync(configDir(env)).mode & 0o777).toBe(0o700);
    expect(resolveProfile('default', env)).toEqual({ baseUrl: 'http://a', apiKey: 'k1' });
    expect(resolveProfile('ci', env)).toEqual({ baseUrl: 'http://b', token: 't1' });
  });

  it('lets RAMPART_URL, RAMPART_API_KEY and RAMPART_TOKEN override the profile', () => {
    const env = tempConfig();
    saveProfile('default', { baseUrl: 'http://a', token: 't1' }, env);
    expect(resolveProfile('default', { ...env, RAMPART_URL: 'http://c' })).toEqual({
      baseUrl: 'http://c',
      token: 't1',
    });
    expect(resolveProfile('default', { ...env, RAMPART_API_KEY: 'k2' })).toEqual({
      baseUrl: 'http://a',
      apiKey: 'k2',
    });
    expect(
      resolveProfile('none', { ...env, RAMPART_URL: 'http://d', RAMPART_TOKEN: 't3' }),
    ).toEqual({ baseUrl: 'http://d', token: 't3' });
  });

  it('says how to log in when there is no profile', () => {
    const env = tempConfig();
    expect(() => resolveProfile('default', env)).toThrow(ProfileError);
    expect(() => resolveProfile('default', { ...env, RAMPART_URL: 'http://a' })).toThrow(
      /No credentials/,
    );
  });
});
