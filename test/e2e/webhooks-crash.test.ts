/**
 * No event is lost: the service (a real `npm start` process: API, worker and dispatcher) is killed
 * with SIGKILL while deliveries are pending, restarted on the same database, and every event still
 * reaches the receiver at least once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signToken } from '../../src/adapters/auth-tokens/jwt.js';
import { builtEntry } from '../support/builds.js';
import { createServiceDatabase } from '../support/database.js';
import { TEST_JWT_SECRET } from '../support/harness.js';
import { freePort } from '../support/service-process.js';
import { teardownAfterAll } from '../support/teardown.js';
import { answerWith, startHttpsReceiver } from '../support/tls.js';

const teardown = teardownAfterAll();

async function startService(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [builtEntry('main/server')], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
      PORT: String(port),
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'warn',
      ALLOW_PRIVATE_WEBHOOKS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '0,1000,1000,1000',
      // An attempt cut off by the kill is retried when its lease (timeout + 5 s) ends.
      WEBHOOK_TIMEOUT_MS: '2000',
      WORKER_CONCURRENCY: '4',
      // A scan running at the kill goes back to the queue when its lease ends.
      WORKER_LEASE_MS: '3000',
      // Its scans start no scanner, and the process is killed: with the sandbox on, it would
      // leave the scanner egress rules (private targets refused, 127.0.0.2 included) loaded
      // for every other test file's scanners until the next worker start replaced them.
      SCANNER_SANDBOX: 'off',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  teardown.kill(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`service exited with ${child.exitCode}`);
    }
    try {
      if ((await fetch(`${url}/readyz`)).ok) {
        return { child, url };
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error('service did not become ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data: Record<string, unknown> },
  };
}

describe('webhook delivery across a SIGKILL', () => {
  it('delivers every event at least once after the service is killed and restarted', async () => {
    // The receiver holds every request unanswered, so the kill finds deliveries in flight (and
    // none failed: ten failures would disable the webhook, as the contract says).
    const receiver = await startHttpsReceiver(() => {});
    teardown.add(() => receiver.close());
    const database = await createServiceDatabase('crash');
    teardown.add(() => database.destroy());
    const first = await startService(database.env);
    const token = await signToken(
      TEST_JWT_SECRET,
      { subject: 'crash', tenantId: randomUUID() },
      600,
    );
    const key = String(
      (
        await post(
          `${first.url}/api/v1/api-keys`,
          { authorization: `Bearer ${token}` },
          { name: 'k' },
        )
      ).body.data.rawKey,
    );
    const webhook = await post(
      `${first.url}/api/v1/webhooks`,
      { 'x-api-key': key },
      { name: 'crash', url: receiver.url, events: ['scan.started', 'scan.failed'] },
    );
    expect(webhook.status).toBe(201);
    const scanIds: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const created = await post(
        `${first.url}/api/v1/scans`,
        { 'x-api-key': key },
        { target: `gone-${i}.invalid`, scanType: 'nmap' },
      );
      expect(created.status).toBe(201);
      scanIds.push(String(created.body.data.id));
    }
    await receiver.waitForRequests(1, 20_000);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const beforeRestart = receiver.requests.length;
    receiver.setHandler(answerWith(200));
    await startService(database.env);

    const delivered = () => {
      const seen = new Set<string>();
      for (const request of receiver.requests.slice(beforeRestart)) {
        const body = JSON.parse(request.body.toString('utf8'));
        seen.add(`${body.event}:${body.data.scanId}`);
      }
      return seen;
    };
    const expected = scanIds.flatMap((id) => [`scan.started:${id}`, `scan.failed:${id}`]);
    const deadline = Date.now() + 45_000;
    while (!expected.every((event) => delivered().has(event)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Nothing was acknowledged before the kill, so every event must arrive after the restart:
    // leased attempts when their lease ends, the rest at once.
    expect(expected.filter((event) => !delivered().has(event))).toEqual([]);
  }, 120_000);
});
