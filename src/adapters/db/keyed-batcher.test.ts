import { describe, expect, it } from 'vitest';
import { createKeyedBatcher } from './keyed-batcher.js';

/** A write whose calls are recorded and which ends only when the test releases it. */
function controlledWrite() {
  const calls: Array<{
    key: string;
    items: number[];
    release: () => void;
    fail: (error: Error) => void;
  }> = [];
  const write = (key: string, items: readonly number[]) =>
    new Promise<PromiseSettledResult<string>[]>((resolve, reject) => {
      calls.push({
        key,
        items: [...items],
        release: () =>
          resolve(items.map((item) => ({ status: 'fulfilled', value: `${key}:${item}` }))),
        fail: reject,
      });
    });
  return { calls, write };
}

/** Lets the batcher take its next batch (it waits one macrotask after a write). */
const tick = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
};

describe('createKeyedBatcher', () => {
  it('writes a lone item at once, in a batch of its own', async () => {
    const { calls, write } = controlledWrite();
    const batcher = createKeyedBatcher(write, { maxBatch: 10 });
    const result = batcher.submit('a', 1);
    expect(calls.map((call) => call.items)).toEqual([[1]]);
    calls[0]?.release();
    await expect(result).resolves.toBe('a:1');
    await tick();
    expect(batcher.busyKeys).toBe(0);
  });

  it('sends what arrives during a write as the next batch, in order of arrival', async () => {
    const { calls, write } = controlledWrite();
    const batcher = createKeyedBatcher(write, { maxBatch: 10 });
    const results = [1, 2, 3, 4].map((item) => batcher.submit('a', item));
    expect(calls.map((call) => call.items)).toEqual([[1]]);
    calls[0]?.release();
    await tick();
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]?.release();
    await expect(Promise.all(results)).resolves.toEqual(['a:1', 'a:2', 'a:3', 'a:4']);
    await tick();
    expect(batcher.busyKeys).toBe(0);
  });

  it('lets callers woken by a write join the next batch instead of going alone', async () => {
    const { calls, write } = controlledWrite();
    const batcher = createKeyedBatcher(write, { maxBatch: 10 });
    // Each caller, once answered, asks again at once (a worker finishing and claiming).
    const again = (item: number) =>
      batcher.submit('a', item).then(() => batcher.submit('a', item + 10));
    const results = [again(1), again(2), again(3)];
    calls[0]?.release();
    await tick();
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3, 11]]);
    calls[1]?.release();
    await tick();
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3, 11], [12, 13]]);
    calls[2]?.release();
    await expect(Promise.all(results)).resolves.toEqual(['a:11', 'a:12', 'a:13']);
  });

  it('never puts more than maxBatch items in one write', async () => {
    const { calls, write } = controlledWrite();
    const batcher = createKeyedBatcher(write, { maxBatch: 2 });
    const results = [1, 2, 3, 4, 5, 6].map((item) => batcher.submit('a', item));
    for (let index = 0; index < 4; index++) {
      calls[index]?.release();
      await tick();
    }
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3], [4, 5], [6]]);
    await expect(Promise.all(results)).resolves.toHaveLength(6);
  });

  it('writes different keys concurrently', async () => {
    const { calls, write } = controlledWrite();
    const batcher = createKeyedBatcher(write, { maxBatch: 10 });
    const a = batcher.submit('a', 1);
    const b = batcher.submit('b', 1);
    expect(calls.map((call) => call.key)).toEqual(['a', 'b']);
    expect(batcher.busyKeys).toBe(2);
    calls[1]?.release();
    await expect(b).resolves.toBe('b:1');
    calls[0]?.release();
    await expect(a).resolves.toBe('a:1');
  });

  it('allows maxInFlight writes of one key at once', async () => {
    const { calls, write } = controlledWrite();
    const batcher = createKeyedBatcher(write, { maxBatch: 10, maxInFlight: 2 });
    const results = [1, 2, 3].map((item) => batcher.submit('a', item));
    expect(calls.map((call) => call.items)).toEqual([[1], [2]]);
    calls[1]?.release();
    await tick();
    expect(calls.map((call) => call.items)).toEqual([[1], [2], [3]]);
    calls[0]?.release();
    calls[2]?.release();
    await expect(Promise.all(results)).resolves.toEqual(['a:1', 'a:2', 'a:3']);
  });

  it('settles each item as the write says, and a failed write rejects only its own batch', async () => {
    const batcher = createKeyedBatcher(
      async (_key, items: readonly number[]): Promise<PromiseSettledResult<number>[]> => {
        if (items.includes(13)) {
          throw new Error('unlucky batch');
        }
        return items.map((item) =>
          item < 0
            ? { status: 'rejected', reason: new Error(`negative ${item}`) }
            : { status: 'fulfilled', value: item * 2 },
        );
      },
      { maxBatch: 1 },
    );
    const results = await Promise.allSettled([
      batcher.submit('a', 1),
      batcher.submit('a', -1),
      batcher.submit('a', 13),
      batcher.submit('a', 2),
    ]);
    expect(
      results.map((result) =>
        result.status === 'fulfilled' ? result.value : String(result.reason),
      ),
    ).toEqual([2, 'Error: negative -1', 'Error: unlucky batch', 4]);
    await tick();
    expect(batcher.busyKeys).toBe(0);
  });

  it('rejects the batch when the write answers a result count that does not match', async () => {
    const batcher = createKeyedBatcher(async (): Promise<PromiseSettledResult<number>[]> => [], {
      maxBatch: 4,
    });
    await expect(batcher.submit('a', 1)).rejects.toThrow('batch write answered 0 results for 1');
  });

  it('refuses a batch size or a number of writes in flight below one', () => {
    const write = async () => [];
    expect(() => createKeyedBatcher(write, { maxBatch: 0 })).toThrow(RangeError);
    expect(() => createKeyedBatcher(write, { maxBatch: 1, maxInFlight: 0 })).toThrow(RangeError);
    expect(() => createKeyedBatcher(write, { maxBatch: 1.5 })).toThrow(RangeError);
  });
});
