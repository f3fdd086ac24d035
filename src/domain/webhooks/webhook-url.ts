/**
 * Webhook and callback URLs (specification: HTTPS only, at most 2048 characters). This part needs
 * no network: the syntax, and hosts that are IP literals in a refused range. Names are resolved by
 * the adapter (adapters/webhook-client/check-webhook-url.ts), and checked again at every delivery.
 */
import { describeRefusedRange, refusedRangeOf } from '../targets/refused-ranges.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type UrlCheck =
  | { readonly ok: true; readonly host: string; readonly hostIsAddress: boolean }
  | { readonly ok: false; readonly reason: string };

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Checks a webhook URL. The host is read after WHATWG normalization, which turns `0x7f.1`,
 * `2130706433` and `%31%32%37.0.0.1` into `127.0.0.1`, so those spellings cannot slip past.
 */
export function checkWebhookUrlSyntax(url: string, allowPrivate: boolean): UrlCheck {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `URL must be at most ${MAX_WEBHOOK_URL_LENGTH} characters long` };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (parsed.protocol !== 'https:') {
    return { ok: false, reason: 'URL must use HTTPS' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'URL must not contain credentials' };
  }
  const bracketless = parsed.hostname.startsWith('[')
    ? parsed.hostname.slice(1, -1)
    : parsed.hostname;
  // One trailing dot names the same host (`localhost.`).
  const host = bracketless.endsWith('.') ? bracketless.slice(0, -1) : bracketless;
  const hostIsAddress = IPV4.test(host) || host.includes(':');
  if (hostIsAddress && !allowPrivate) {
    const range = refusedRangeOf(host);
    if (range !== null) {
      return { ok: false, reason: `${host} is ${describeRefusedRange(range)}` };
    }
  }
  if (!hostIsAddress && (host === 'localhost' || host.endsWith('.localhost')) && !allowPrivate) {
    return { ok: false, reason: `${host} is a loopback name` };
  }
  return { ok: true, host, hostIsAddress };
}
