/**
 * The CLI's profiles: a base URL and one credential (an API key or a dashboard token) under a
 * name, in `<config dir>/profiles.json` — the platform config directory of env-paths (on Linux
 * `$XDG_CONFIG_HOME/rampart`, else `~/.config/rampart`), or RAMPART_CONFIG_DIR. The directory is
 * created 0700 and the file written 0600; RAMPART_URL, RAMPART_API_KEY and RAMPART_TOKEN override
 * what the profile holds.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import type { RampartProfile } from '../client/index.js';

export type StoredProfile =
  | { readonly baseUrl: string; readonly apiKey: string }
  | { readonly baseUrl: string; readonly token: string };

type ProfileFile = { profiles: Record<string, StoredProfile> };

/** A profile problem the user fixes (exit 1 with the message). */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}

/** RAMPART_CONFIG_DIR of `env`, else env-paths' config directory (which reads process.env). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.RAMPART_CONFIG_DIR;
  return override !== undefined && override !== ''
    ? override
    : envPaths('rampart', { suffix: '' }).config;
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'profiles.json');
}

function isStoredProfile(value: unknown): value is StoredProfile {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const { baseUrl, apiKey, token } = value as Record<string, unknown>;
  return (
    typeof baseUrl === 'string' && (typeof apiKey === 'string') !== (typeof token === 'string')
  );
}

export function readProfiles(env: NodeJS.ProcessEnv = process.env): ProfileFile {
  let text: string;
  try {
    text = readFileSync(profilesPath(env), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { profiles: {} };
    }
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProfileError(`${profilesPath(env)} is not valid JSON`);
  }
  const profiles = (parsed as { profiles?: unknown } | null)?.profiles;
  if (typeof profiles !== 'object' || profiles === null) {
    throw new ProfileError(`${profilesPath(env)} has no "profiles" object`);
  }
  const valid: Record<string, StoredProfile> = {};
  for (const [name, profile] of Object.entries(profiles)) {
    if (isStoredProfile(profile)) {
      valid[name] = profile;
    }
  }
  return { profiles: valid };
}

/** Stores a profile (replacing one of the same name): dir 0700, file 0600, written atomically. */
export function saveProfile(
  name: string,
  profile: StoredProfile,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = readProfiles(env);
  file.profiles[name] = profile;
  const path = profilesPath(env);
  const staging = `${path}.${process.pid}.tmp`;
  writeFileSync(staging, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(staging, 0o600);
  renameSync(staging, path);
  return path;
}

/** The profile a command runs with: the stored one, with the environment's overrides applied. */
export function resolveProfile(name: string, env: NodeJS.ProcessEnv = process.env): RampartProfile {
  const stored = readProfiles(env).profiles[name];
  const baseUrl = env.RAMPART_URL || stored?.baseUrl;
  if (baseUrl === undefined) {
    throw new ProfileError(
      `No profile "${name}": run \`rampart login --url <url> --key <key>\` or set RAMPART_URL`,
    );
  }
  if (env.RAMPART_API_KEY) {
    return { baseUrl, apiKey: env.RAMPART_API_KEY };
  }
  if (env.RAMPART_TOKEN) {
    return { baseUrl, token: env.RAMPART_TOKEN };
  }
  if (stored === undefined) {
    throw new ProfileError(
      `No credentials: set RAMPART_API_KEY or RAMPART_TOKEN, or run \`rampart login\``,
    );
  }
  return 'apiKey' in stored ? { baseUrl, apiKey: stored.apiKey } : { baseUrl, token: stored.token };
}
