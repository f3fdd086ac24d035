/**
 * The assets page's data: the asset kinds the API accepts with what each value looks like, tags
 * typed as a comma-separated list, and the sentence that tells the outcome of a verification.
 */
import type { operations } from '../../../src/client/index.js';

export type Asset =
  operations['getAsset']['responses'][200]['content']['application/json']['data']['asset'];
export type AssetKind = Asset['kind'];

export const ASSET_KINDS = [
  'domain',
  'host',
  'ip',
  'network',
  'url',
  'image',
] as const satisfies readonly AssetKind[];

/** An example value of each kind, shown as the value's placeholder. */
export const KIND_EXAMPLES: Record<AssetKind, string> = {
  domain: 'example.com (covers its subdomains)',
  host: 'www.example.com',
  ip: '203.0.113.10',
  network: '203.0.113.0/24',
  url: 'https://example.com/app/',
  image: 'registry.example.com/team/app:1.2',
};

/** Tags from "a, b ,,c, a": trimmed, without blanks or repeats, in the order typed. */
export function tagsFrom(text: string): string[] {
  return [...new Set(text.split(',').map((tag) => tag.trim()))].filter((tag) => tag !== '');
}

/** What a verification attempt's answer says, in one sentence. */
export function verificationOutcome(verification: Asset['verification']): string {
  if (verification.status === 'verified') {
    return `Verified${verification.method === null ? '' : ` (${verification.method})`}.`;
  }
  return verification.lastError === null
    ? 'Not verified yet.'
    : `Not verified: ${verification.lastError}`;
}
