import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { createOutageLog, outageLogOf } from './outage-log.js';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

function capture() {
  const lines: Line[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _encoding, callback) {
        lines.push(JSON.parse(String(chunk)) as Line);
        callback();
      },
    }),
  );
  return { lines, logger };
}

/** Errors shaped as `pg` and Node raise them. */
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
    code: 'ECONNREFUSED',
    errno: -111,
  });
const terminated = () => new Error('Connection terminated unexpectedly');
const constraint = () =>
  Object.assign(new Error('duplicate key value violates unique constraint "scans_pkey"'), {
    code: '23505',
    severity: 'ERROR',
  });

describe('the outage log', () => {
  it('says `database unreachable` once per outage, without a stack, and when it is back', () => {
    const { lines, logger } = capture();
    let now = 1_000;
    const outage = createOutageLog(logger, () => now);
    expect(outage.failed(refused(), outage.begin(), 'claiming scans', { worker: 'w1' })).toBe(true);
    for (let round = 0; round < 50; round += 1) {
      now += 200;
      expect(outage.failed(terminated(), outage.begin(), 'webhook dispatch')).toBe(true);
    }
    now += 200;
    outage.succeeded(outage.begin());
    outage.succeeded(outage.begin());
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 40, msg: 'database unreachable' },
      { level: 30, msg: 'database reachable again' },
    ]);
    expect(lines[0]).toMatchObject({
      worker: 'w1',
      during: 'claiming scans',
      code: 'ECONNREFUSED',
      error: 'connect ECONNREFUSED 127.0.0.1:5432',
    });
    expect(JSON.stringify(lines[0])).not.toContain('stack');
    expect(lines[1]).toMatchObject({ awayMs: 10_200 });
  });

  it('says it again for the next outage', () => {
    const { lines, logger } = capture();
    const outage = createOutageLog(logger);
    for (let outages = 0; outages < 3; outages += 1) {
      outage.failed(terminated(), outage.begin(), 'heartbeat');
      outage.failed(terminated(), outage.begin(), 'heartbeat');
      outage.succeeded(outage.begin());
    }
    expect(lines.map((line) => line.msg)).toEqual([
      'database unreachable',
      'database reachable again',
      'database unreachable',
      'database reachable again',
      'database unreachable',
      'database reachable again',
    ]);
  });

  it('logs any other failure as an error, every time, and it does not start an outage', () => {
    const { lines, logger } = capture();
    const outage = createOutageLog(logger);
    expect(
      outage.failed(constraint(), outage.begin(), 'storing the end of a scan', { scanId: 's1' }),
    ).toBe(false);
    expect(outage.failed(new TypeError('x is undefined'), outage.begin(), 'housekeeping')).toBe(
      false,
    );
    outage.succeeded(outage.begin());
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 50, msg: 'storing the end of a scan failed' },
      { level: 50, msg: 'housekeeping failed' },
    ]);
    expect(lines[0]).toMatchObject({ scanId: 's1', err: { code: '23505' } });
  });

  it('logs a real error during an outage too, without ending the outage', () => {
    const { lines, logger } = capture();
    const outage = createOutageLog(logger);
    outage.failed(refused(), outage.begin(), 'claiming scans');
    outage.failed(constraint(), outage.begin(), 'storing the end of a scan');
    outage.failed(refused(), outage.begin(), 'claiming scans');
    outage.succeeded(outage.begin());
    expect(lines.map((line) => line.msg)).toEqual([
      'database unreachable',
      'storing the end of a scan failed',
      'database reachable again',
    ]);
  });

  it('names an address-less refusal by its code (an AggregateError has no message)', () => {
    const { lines, logger } = capture();
    const outage = createOutageLog(logger);
    const aggregate = Object.assign(new AggregateError([refused(), refused()], ''), {
      code: 'ECONNREFUSED',
    });
    outage.failed(aggregate, outage.begin(), 'claiming scans');
    expect(lines[0]).toMatchObject({ code: 'ECONNREFUSED', error: 'ECONNREFUSED' });
  });

  it('tells how long the database has been back: never away, away, back for a while', () => {
    const { logger } = capture();
    let now = 0;
    const outage = createOutageLog(logger, () => now);
    expect(outage.reachableForMs()).toBe(Number.POSITIVE_INFINITY);
    outage.succeeded(outage.begin());
    expect(outage.reachableForMs()).toBe(Number.POSITIVE_INFINITY);
    outage.failed(refused(), outage.begin(), 'housekeeping');
    now = 5_000;
    expect(outage.reachableForMs()).toBe(0);
    outage.succeeded(outage.begin());
    now = 6_500;
    outage.succeeded(outage.begin());
    expect(outage.reachableForMs()).toBe(1_500);
    // A real error is no outage.
    outage.failed(constraint(), outage.begin(), 'housekeeping');
    expect(outage.reachableForMs()).toBe(1_500);
  });

  it('is one log for every loop of a process that uses the same database handle', () => {
    const { lines, logger } = capture();
    const handle = {} as DatabaseHandle;
    const other = {} as DatabaseHandle;
    expect(outageLogOf(handle, logger)).toBe(outageLogOf(handle, logger));
    expect(outageLogOf(other, logger)).not.toBe(outageLogOf(handle, logger));
    const shared = outageLogOf(handle, logger);
    shared.failed(refused(), shared.begin(), 'claiming scans');
    shared.failed(refused(), shared.begin(), 'webhook dispatch');
    expect(lines.filter((line) => line.msg === 'database unreachable')).toHaveLength(1);
  });

  it('does not end an outage on a success of a call begun before it was seen', () => {
    const { lines, logger } = capture();
    const outage = createOutageLog(logger);
    // Its answer came just before the cut, and is reported just after the first failure.
    const progress = outage.begin();
    outage.failed(refused(), outage.begin(), 'storing the end of a scan');
    outage.succeeded(progress);
    expect(outage.reachableForMs()).toBe(0);
    outage.failed(terminated(), outage.begin(), 'heartbeat');
    outage.succeeded(outage.begin());
    expect(lines.map((line) => line.msg)).toEqual([
      'database unreachable',
      'database reachable again',
    ]);
  });

  it('takes a failure of a call begun before the database last answered as the ended outage', () => {
    const { lines, logger } = capture();
    let now = 0;
    const outage = createOutageLog(logger, () => now);
    const heartbeat = outage.begin();
    outage.failed(refused(), outage.begin(), 'storing the end of a scan');
    const claim = outage.begin();
    now = 1_000;
    outage.succeeded(claim);
    now = 1_400;
    // Begun during the outage, their failures arrive after the first success: no new outage.
    expect(outage.failed(terminated(), heartbeat, 'heartbeat')).toBe(true);
    expect(outage.failed(refused(), claim, 'claiming scans')).toBe(true);
    expect(outage.reachableForMs()).toBe(400);
    // A real error of such a call is still logged; a call begun after the answer starts an outage.
    expect(outage.failed(constraint(), claim, 'claiming scans')).toBe(false);
    outage.failed(refused(), outage.begin(), 'housekeeping');
    expect(lines.map((line) => line.msg)).toEqual([
      'database unreachable',
      'database reachable again',
      'claiming scans failed',
      'database unreachable',
    ]);
  });
});
