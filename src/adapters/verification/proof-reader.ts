/**
 * Reads ownership proofs (issue 24): TXT records through a node:dns Resolver (the servers of
 * VERIFICATION_DNS_SERVERS, else the system's), and the HTTPS proof file through the same SSRF
 * guard as webhook deliveries (send-webhook.ts): an IP-literal host in a refused range is refused
 * before connecting, a name is resolved by the guarded connect-time lookup that refuses an answer
 * with any address in a refused range (ALLOW_PRIVATE_WEBHOOKS lifts both), redirects are never
 * followed, and at most 4 KiB of the body is read.
 */
import { Resolver } from 'node:dns/promises';
import { Agent, request } from 'undici';
import { checkWebhookUrlSyntax } from '../../domain/webhooks/webhook-url.js';
import type { ProofReader } from '../../use-cases/ports/assets.js';
import type { LookupAddresses } from '../dns/resolve-target.js';
import { createGuardedLookup } from '../webhook-client/send-webhook.js';

export interface ProofReaderOptions {
  /** `host[:port]` entries for Resolver.setServers; empty: the system's resolvers. */
  readonly dnsServers: readonly string[];
  readonly timeoutMs: number;
  /** ALLOW_PRIVATE_WEBHOOKS. */
  readonly allowPrivate: boolean;
  /** Resolves names of the HTTPS check (tests); default the system resolver. */
  readonly lookup?: LookupAddresses;
}

const MAX_FILE_BYTES = 4096;

export function createProofReader(
  options: ProofReaderOptions,
): ProofReader & { close(): Promise<void> } {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
  if (options.dnsServers.length > 0) {
    resolver.setServers([...options.dnsServers]);
  }
  const agent = new Agent({
    connect: {
      lookup: createGuardedLookup({ allowPrivate: options.allowPrivate, lookup: options.lookup }),
      timeout: options.timeoutMs,
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    // One check, one connection: nothing to keep alive between checks hours apart.
    pipelining: 0,
  });

  return {
    async txt(name) {
      try {
        return { ok: true, records: await resolver.resolveTxt(name) };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        return {
          ok: false,
          reason:
            code === 'ENODATA' || code === 'ENOTFOUND'
              ? `no TXT record at ${name}`
              : `DNS lookup of ${name} failed (${code ?? 'error'})`,
        };
      }
    },

    async file(url) {
      const syntax = checkWebhookUrlSyntax(url, options.allowPrivate);
      if (!syntax.ok) {
        return { ok: false, reason: `${url}: ${syntax.reason}` };
      }
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      try {
        const response = await request(url, {
          dispatcher: agent,
          method: 'GET',
          headers: { 'user-agent': 'rampart-verification' },
          signal: controller.signal,
        });
        // Destroying a body undici has not finished emits an AbortError: expected, not a crash.
        response.body.on('error', () => {});
        if (response.statusCode !== 200) {
          response.body.destroy();
          const note =
            response.statusCode >= 300 && response.statusCode < 400
              ? ' (redirects are not followed)'
              : '';
          return { ok: false, reason: `${url} answered HTTP ${response.statusCode}${note}` };
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of response.body) {
          const bytes = Buffer.from(chunk as Uint8Array);
          chunks.push(bytes);
          size += bytes.length;
          if (size >= MAX_FILE_BYTES) {
            response.body.destroy();
            break;
          }
        }
        return {
          ok: true,
          body: Buffer.concat(chunks).subarray(0, MAX_FILE_BYTES).toString('utf8'),
        };
      } catch (error) {
        const reason = controller.signal.aborted
          ? `timeout after ${options.timeoutMs} ms`
          : (error as Error).message.slice(0, 200);
        return { ok: false, reason: `${url}: ${reason}` };
      } finally {
        clearTimeout(timer);
      }
    },

    close: () => agent.close(),
  };
}
