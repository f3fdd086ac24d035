/**
 * One load run, in its own process (the load generator never shares a CPU-bound event loop with
 * the server). Cycles through the given API keys so no key hits its per-minute limit (1000 at
 * most, by contract) while the pipeline still does every step for every request. run.ts gives
 * every target a keys file, the baseline included, so the generator's own work per request is
 * the same whatever it measures.
 * With a body file, each request is a POST of that JSON body.
 * Usage: load.ts <url> <connections> <seconds> [keys-file|-] [body-file]
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url = '', connections = '10', seconds = '10', keysFile, bodyFile] = process.argv.slice(2);
const keys: string[] =
  keysFile && keysFile !== '-' ? (JSON.parse(readFileSync(keysFile, 'utf8')) as string[]) : [];
const body = bodyFile ? readFileSync(bodyFile, 'utf8') : undefined;
let next = 0;

const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [
    {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      setupRequest: (request) => {
        if (keys.length === 0) {
          return request;
        }
        const key = keys[next++ % keys.length] ?? '';
        return { ...request, headers: { ...request.headers, 'x-api-key': key } };
      },
    },
  ],
});

process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    total: result.requests.total,
  })}\n`,
);
