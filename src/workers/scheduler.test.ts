import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { outageLogOf } from './outage-log.js';
import { startScheduler } from './scheduler.js';

const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('the scheduler loop', () => {
  it('ends an outage another loop saw with a claim begun after it, in a round still under way', async () => {
    const lines: string[] = [];
    const logger = pino(
      new Writable({
        write(chunk, _encoding, callback) {
          lines.push((JSON.parse(String(chunk)) as { msg: string }).msg);
          callback();
        },
      }),
    );
    const database = {} as DatabaseHandle;
    const outage = outageLogOf(database, logger);
    const batchSize = 2;
    let claims = 0;
    let lastClaimed: () => void = () => undefined;
    const roundEnded = new Promise<void>((resolve) => {
      lastClaimed = resolve;
    });
    const scheduler = startScheduler({
      database,
      batchSize,
      pollMs: 3_600_000,
      logger,
      async claim() {
        claims += 1;
        if (claims === 2) {
          // Between the round's first claim and its second, another loop of the process (a
          // heartbeat) meets the outage; the second claim was begun before it was seen.
          outage.failed(refused(), outage.begin(), 'heartbeat');
        }
        // Full batches, so the start-up round goes on to a third claim, which finds nothing due.
        if (claims < 3) {
          return batchSize;
        }
        lastClaimed();
        return 0;
      },
    });
    await roundEnded;
    await scheduler.stop();
    expect(claims).toBe(3);
    expect(lines).toEqual(['database unreachable', 'database reachable again']);
  });
});
