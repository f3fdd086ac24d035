/**
 * Group commit in the application: items submitted under one key while `maxInFlight` writes of
 * that key are in flight wait for one of them to end, and then go together as the next write. A
 * lone item is written at once (no timer, no added latency when there is no contention); under
 * load the batches grow by themselves to the number of items that arrived during one write. After
 * a write, the next batch is taken one macrotask later, so that callers woken by the write's
 * results (a worker that finished one scan and asks for the next) join it instead of the first
 * of them going alone. Keys are independent: writes of different keys run concurrently.
 *
 * `write` receives the items in the order they were submitted and settles each of them: one
 * `PromiseSettledResult` per item, in the same order. When it throws, every item of that batch is
 * rejected with the error.
 */
export interface KeyedBatcher<T, R> {
  submit(key: string, item: T): Promise<R>;
  /** Keys with a write in flight or items waiting (for tests and shutdown). */
  readonly busyKeys: number;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

export function createKeyedBatcher<T, R>(
  write: (key: string, items: readonly T[]) => Promise<readonly PromiseSettledResult<R>[]>,
  options: { readonly maxBatch: number; readonly maxInFlight?: number },
): KeyedBatcher<T, R> {
  if (!Number.isInteger(options.maxBatch) || options.maxBatch < 1) {
    throw new RangeError(`maxBatch must be a positive integer, got ${options.maxBatch}`);
  }
  const maxInFlight = options.maxInFlight ?? 1;
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) {
    throw new RangeError(`maxInFlight must be a positive integer, got ${maxInFlight}`);
  }
  /** Per key, the items waiting and the writes in flight; a key is present while it is busy. */
  const queues = new Map<string, { readonly waiting: Waiting<T, R>[]; writers: number }>();

  async function drain(
    key: string,
    state: { readonly waiting: Waiting<T, R>[]; writers: number },
  ): Promise<void> {
    const queue = state.waiting;
    while (queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch);
      try {
        const results = await write(
          key,
          batch.map((waiting) => waiting.item),
        );
        if (results.length !== batch.length) {
          throw new Error(`batch write answered ${results.length} results for ${batch.length}`);
        }
        batch.forEach((waiting, index) => {
          const result = results[index] as PromiseSettledResult<R>;
          if (result.status === 'fulfilled') {
            waiting.resolve(result.value);
          } else {
            waiting.reject(result.reason);
          }
        });
      } catch (error) {
        for (const waiting of batch) {
          waiting.reject(error);
        }
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    state.writers -= 1;
    if (state.writers === 0) {
      queues.delete(key);
    }
  }

  return {
    submit(key, item) {
      return new Promise<R>((resolve, reject) => {
        let state = queues.get(key);
        if (state === undefined) {
          state = { waiting: [], writers: 0 };
          queues.set(key, state);
        }
        state.waiting.push({ item, resolve, reject });
        if (state.writers < maxInFlight) {
          state.writers += 1;
          void drain(key, state);
        }
      });
    },
    get busyKeys() {
      return queues.size;
    },
  };
}
