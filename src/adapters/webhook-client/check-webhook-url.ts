/**
 * Creation-time check of a webhook or callback URL: the syntax and IP literals (pure, in
 * domain/webhooks/webhook-url.ts), then the name resolved: a name that does not resolve is
 * WEBHOOK_URL_UNREACHABLE; one with ANY address in a refused range is INVALID_WEBHOOK_URL while
 * ALLOW_PRIVATE_WEBHOOKS is off. Delivery checks the address again at connect time (send-webhook.ts),
 * because a name can point elsewhere by then.
 */
import { describeRefusedRange, refusedRangeOf } from '../../domain/targets/refused-ranges.js';
import { checkWebhookUrlSyntax } from '../../domain/webhooks/webhook-url.js';
import type { WebhookUrlCheck } from '../../use-cases/ports/webhooks.js';
import { type LookupAddresses, resolveTargetHost } from '../dns/resolve-target.js';

export async function checkWebhookUrl(
  url: string,
  allowPrivate: boolean,
  lookup?: LookupAddresses,
): Promise<WebhookUrlCheck> {
  const syntax = checkWebhookUrlSyntax(url, allowPrivate);
  if (!syntax.ok) {
    return { ok: false, code: 'INVALID_WEBHOOK_URL', reason: syntax.reason };
  }
  if (syntax.hostIsAddress) {
    return { ok: true };
  }
  const resolved = await resolveTargetHost(syntax.host, lookup ? { lookup } : {});
  if (!resolved.ok) {
    return {
      ok: false,
      code: 'WEBHOOK_URL_UNREACHABLE',
      reason: `${syntax.host} does not resolve`,
    };
  }
  if (!allowPrivate) {
    for (const address of resolved.addresses) {
      const range = refusedRangeOf(address);
      if (range !== null) {
        return {
          ok: false,
          code: 'INVALID_WEBHOOK_URL',
          reason: `${syntax.host} resolves to ${address}, ${describeRefusedRange(range)}`,
        };
      }
    }
  }
  return { ok: true };
}
