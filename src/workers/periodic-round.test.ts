import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createOutageLog } from './outage-log.js';
import { startPeriodicRound } from './periodic-round.js';

/** The outage log's lines, each with what `stamp()` said when it was written. */
function quietLog(stamp: () => number = () => 0) {
  const lines: string[] = [];
  const stamps: number[] = [];
  const logger = pino(
    new Writable({
      write(chunk, _encoding, callback) {
        lines.push((JSON.parse(String(chunk)) as { msg: string }).msg);
        stamps.push(stamp());
        callback();
      },
    }),
  );
  return { lines, stamps, outage: createOutageLog(logger) };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('a periodic round', () => {
  it('never runs two rounds at once, and stop waits for the one under way', async () => {
    const { outage } = quietLog();
    let inRound = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const loop = startPeriodicRound({
      async round(stopped) {
        inRound += 1;
        most = Math.max(most, inRound);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        inRound -= 1;
        return stopped();
      },
      initial: false,
      intervalMs: 60_000,
      enabled: false,
      outage,
      what: 'testing',
      component: 'test',
    });
    const first = loop.runOnce();
    const second = loop.runOnce();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await first).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    // The second round saw the stop.
    expect(await second).toBe(true);
    expect(most).toBe(1);
  });

  it('says an outage once and its end only when a round shows the database answered', async () => {
    const results: Array<'fail' | boolean> = ['fail', 'fail', false, true];
    let rounds = 0;
    const { lines, stamps, outage } = quietLog(() => rounds);
    const loop = startPeriodicRound({
      async round() {
        const next = results[rounds] ?? true;
        rounds += 1;
        if (next === 'fail') {
          throw refused();
        }
        return next;
      },
      initial: true,
      intervalMs: 5,
      enabled: true,
      outage,
      what: 'testing',
      component: 'test',
      answered: (held) => held,
    });
    while (rounds < results.length + 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await loop.stop();
    expect(lines.slice(0, 2)).toEqual(['database unreachable', 'database reachable again']);
    expect(lines.filter((line) => line === 'database unreachable')).toHaveLength(1);
    // Said after the fourth round (the first whose result shows an answer), not the third.
    expect(stamps[1]).toBeGreaterThanOrEqual(4);
  });

  it('runs one round at a time when rounds outlast the interval, without piling them up', async () => {
    vi.useFakeTimers();
    try {
      const { outage } = quietLog();
      let started = 0;
      let release: () => void = () => undefined;
      const loop = startPeriodicRound({
        async round() {
          started += 1;
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return true;
        },
        initial: true,
        intervalMs: 100,
        enabled: true,
        outage,
        what: 'testing',
        component: 'test',
      });
      // Ten ticks while the first round is held.
      await vi.advanceTimersByTimeAsync(1_050);
      expect(started).toBe(1);
      release();
      await vi.advanceTimersByTimeAsync(0);
      // Nothing was queued behind it: the next round waits for the next tick.
      expect(started).toBe(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(started).toBe(2);
      release();
      await loop.stop();
      expect(started).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
