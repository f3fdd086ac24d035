/** Polling for tests: read a value until it satisfies a condition, or fail after a deadline. */

/** Calls `probe` every `everyMs` until `done` accepts its value (returned), or throws after `ms`. */
export async function until<T>(
  probe: () => T | Promise<T>,
  done: (value: NoInfer<T>) => boolean,
  ms = 15_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value)) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
