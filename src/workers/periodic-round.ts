/**
 * A background loop of a process: every `intervalMs` one round, never two at once (a round asked
 * for while one runs follows it; a tick while the timer's own round is queued or under way adds
 * none, so rounds longer than the interval do not pile up), its database failures reported to the
 * process's outage log (an outage is said once, and the next round tries again). `runOnce()` runs
 * a round now (tests); `stop()` lets the round under way see `stopped()` and waits for it. The
 * asset re-verifier and retention run on it.
 */
import type { OutageLog } from './outage-log.js';

export interface PeriodicRound<T> {
  /** A round now, after the one under way; resolves with its result. */
  runOnce(): Promise<T>;
  stop(): Promise<void>;
}

export function startPeriodicRound<T>(options: {
  /** One round; `stopped()` turns true when the loop stops, so a long round can end early. */
  readonly round: (stopped: () => boolean) => Promise<T>;
  /** What `runOnce` chains on before the first round. */
  readonly initial: T;
  readonly intervalMs: number;
  /** false: no timer (rounds run only through runOnce). */
  readonly enabled: boolean;
  readonly outage: OutageLog;
  /** What a failed round was doing, and the component, as the outage log says them. */
  readonly what: string;
  readonly component: string;
  /** Whether a round's result shows the database answered (default: every result does). */
  readonly answered?: (result: T) => boolean;
}): PeriodicRound<T> {
  const { outage } = options;
  let stopped = false;
  let running: Promise<T> = Promise.resolve(options.initial);
  /** Queues a round after the one under way; `starting` runs when it begins. */
  const queue = (starting: () => void) => {
    const round = () => {
      starting();
      return options.round(() => stopped);
    };
    running = running.then(round, round);
    return running;
  };
  const runOnce = () => queue(() => undefined);
  /** The timer's round is queued or under way: a tick meanwhile has nothing to add. */
  let timerRound = false;
  const timer = options.enabled
    ? setInterval(() => {
        if (timerRound) {
          // A round longer than the interval: the first tick after it starts the next one.
          return;
        }
        timerRound = true;
        // Marked when the round begins, not when it is queued behind a long one.
        let began = outage.begin();
        queue(() => {
          began = outage.begin();
        })
          .finally(() => {
            timerRound = false;
          })
          .then(
            (result) => {
              if (options.answered?.(result) ?? true) {
                outage.succeeded(began);
              }
            },
            (error: unknown) =>
              outage.failed(error, began, options.what, { component: options.component }),
          );
      }, options.intervalMs)
    : null;
  timer?.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer !== null) {
        clearInterval(timer);
      }
      await running.catch(() => undefined);
    },
  };
}
