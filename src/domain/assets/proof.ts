/**
 * Where an asset's proof of ownership lives (issue 24), pure:
 * - a DNS TXT record `rampart-verification=<token>` at the name or at `_rampart-verification.<name>`
 *   (domain assets, and host assets given by name);
 * - an HTTPS file `/.well-known/rampart-verification.txt` holding the token: at the asset's origin
 *   for a URL asset (its port included), on port 443 of the name or address otherwise (domain, host,
 *   ip).
 * Networks and images have neither: an administrator verifies them.
 */
import type { ScanTarget } from '../targets/target.js';

export const PROOF_FILE_PATH = '/.well-known/rampart-verification.txt';
export const TXT_PREFIX = 'rampart-verification=';
export const TXT_LABEL = '_rampart-verification';

export interface ProofLocations {
  /** Names whose TXT records are read, the name itself first. */
  readonly dnsNames: readonly string[];
  /** The URL of the proof file, or null. */
  readonly fileUrl: string | null;
}

export function proofLocations(asset: ScanTarget): ProofLocations {
  const host = asset.host;
  const byName = !asset.hostIsAddress && host !== null;
  const dnsNames =
    (asset.type === 'domain' || asset.type === 'host') && byName
      ? [host, `${TXT_LABEL}.${host}`]
      : [];
  let fileUrl: string | null = null;
  if (asset.type === 'url') {
    fileUrl = `${new URL(asset.value).origin.replace(/^http:/, 'https:')}${PROOF_FILE_PATH}`;
  } else if ((asset.type === 'domain' || asset.type === 'host' || asset.type === 'ip') && host) {
    const bracketed = host.includes(':') ? `[${host}]` : host;
    fileUrl = `https://${bracketed}${PROOF_FILE_PATH}`;
  }
  return { dnsNames, fileUrl };
}

/** Whether one TXT record (its strings joined, as DNS splits long ones) proves the token. */
export function txtProves(record: readonly string[], token: string): boolean {
  return record.join('').trim() === `${TXT_PREFIX}${token}`;
}

/** Whether the proof file's content proves the token (the token alone, or as the TXT record has it). */
export function fileProves(content: string, token: string): boolean {
  const text = content.trim();
  return text === token || text === `${TXT_PREFIX}${token}`;
}
