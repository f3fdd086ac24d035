/** `rampart login`: stores a base URL and one credential as a profile (never printing it). */
import type { Command } from 'commander';
import { type StoredProfile, saveProfile } from '../profiles.js';
import { CliError, runner } from '../runner.js';

interface LoginOptions {
  readonly url: string;
  readonly key?: string;
  readonly token?: string;
}

function checkedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`--url must be an absolute http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`--url must be an absolute http(s) URL, got "${text}"`);
  }
  return url.href.replace(/\/+$/, '');
}

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('store a base URL and an API key or dashboard token as a profile')
    .requiredOption('--url <baseUrl>', 'the service, e.g. https://rampart.example.com')
    .option('--key <apiKey>', 'an API key (X-API-Key)')
    .option('--token <jwt>', 'a dashboard token (rampart token, or your identity provider)')
    .action(
      runner(async (ctx, opts: LoginOptions) => {
        if ((opts.key === undefined) === (opts.token === undefined)) {
          throw new CliError('give --key or --token (one of them)');
        }
        const baseUrl = checkedUrl(opts.url);
        const profile: StoredProfile =
          opts.key !== undefined
            ? { baseUrl, apiKey: opts.key }
            : { baseUrl, token: opts.token ?? '' };
        const file = saveProfile(ctx.profile, profile);
        const credential = opts.key !== undefined ? 'apiKey' : 'token';
        return {
          data: { profile: ctx.profile, baseUrl, credential, file },
          lines: [`profile "${ctx.profile}" saved to ${file} (${baseUrl}, ${credential})`],
        };
      }),
    );
}
