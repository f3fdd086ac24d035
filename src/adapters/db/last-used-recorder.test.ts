import { describe, expect, it } from 'vitest';
import { createLastUsedRecorder } from './last-used-recorder.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createLastUsedRecorder', () => {
  it('writes every id used within the delay in one batch, each id once', async () => {
    const batches: string[][] = [];
    const recorder = createLastUsedRecorder(async (ids) => void batches.push([...ids]), {
      flushDelayMs: 20,
      onError: () => {},
    });
    recorder.record('a');
    recorder.record('b');
    recorder.record('a');
    expect(batches).toEqual([]);
    await sleep(60);
    expect(batches).toEqual([['a', 'b']]);
    recorder.record('c');
    await sleep(60);
    expect(batches).toEqual([['a', 'b'], ['c']]);
    await recorder.close();
  });

  it('writes what is queued when closed, and nothing when nothing is queued', async () => {
    const batches: string[][] = [];
    const recorder = createLastUsedRecorder(async (ids) => void batches.push([...ids]), {
      flushDelayMs: 60_000,
      onError: () => {},
    });
    await recorder.flush();
    expect(batches).toEqual([]);
    recorder.record('a');
    await recorder.close();
    expect(batches).toEqual([['a']]);
  });

  it('reports a failed write and keeps writing later batches', async () => {
    const errors: unknown[] = [];
    const batches: string[][] = [];
    let fail = true;
    const recorder = createLastUsedRecorder(
      async (ids) => {
        if (fail) {
          fail = false;
          throw new Error('database down');
        }
        batches.push([...ids]);
      },
      { flushDelayMs: 60_000, onError: (error) => errors.push(error) },
    );
    recorder.record('a');
    await recorder.flush();
    expect(errors).toHaveLength(1);
    recorder.record('b');
    await recorder.flush();
    expect(batches).toEqual([['b']]);
  });

  it('never runs two writes at once', async () => {
    let running = 0;
    let most = 0;
    const recorder = createLastUsedRecorder(
      async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(20);
        running -= 1;
      },
      { flushDelayMs: 60_000, onError: () => {} },
    );
    recorder.record('a');
    const first = recorder.flush();
    recorder.record('b');
    const second = recorder.flush();
    await Promise.all([first, second]);
    expect(most).toBe(1);
  });
});
