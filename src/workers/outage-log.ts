/**
 * One log line per database outage instead of one per failed call. The background loops of a
 * process (a worker's claims, heartbeats, housekeeping, progress writes, parent hooks and the
 * storing of a scan's end; the webhook dispatcher's rounds) report each database call here:
 *
 * - the first failure that says the database is away (isDatabaseUnavailable) logs
 *   `database unreachable` (warn: what was being done and the error's code and message, never a
 *   stack); the failures after it stay quiet;
 * - the first success after that logs `database reachable again` (info) with how long it was away;
 * - any other failure is a real one and is logged as an error, with its stack, every time.
 *
 * A call reports its end with the mark it took when it began (begin()). A failure of a call that
 * began before the database last answered belongs to the outage that answer ended (under load, a
 * call cut by the outage can report after a call begun later has already succeeded), so it neither
 * logs nor starts a new outage. Likewise a success of a call that began before the outage under
 * way was seen says nothing of the database now (its answer may have come just before the cut and
 * been reported just after), so it does not end that outage: one outage, one line each way.
 *
 * The loops keep their own cadence and retry by themselves; this decides what is said, and tells
 * housekeeping how long the database has been back (reachableForMs). Every loop of a process that
 * uses one database handle shares one log (outageLogOf), so an outage is reported once per
 * process, not once per loop.
 */
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { isDatabaseUnavailable } from '../adapters/db/database-errors.js';

/** When a database call began, as the outage log counts time: by the recoveries seen so far. */
export interface OutageMark {
  readonly recoveries: number;
  /** Outages seen so far (the one under way included). */
  readonly outages: number;
}

export interface OutageLog {
  /** Marks the start of a database call; its failure is reported with this mark. */
  begin(): OutageMark;
  /**
   * A database call begun at `began` while doing `what` (`claiming scans`) failed. Answers
   * whether the database is away (worth retrying later); otherwise the error was logged as
   * `<what> failed`.
   */
  failed(
    error: unknown,
    began: OutageMark,
    what: string,
    fields?: Readonly<Record<string, unknown>>,
  ): boolean;
  /**
   * A database call begun at `began` succeeded: an outage under way is over, unless it was seen
   * only after the call began.
   */
  succeeded(began: OutageMark): void;
  /**
   * How long the database has answered without interruption, as this process saw it: 0 while it
   * is away, Infinity when it never was.
   */
  reachableForMs(): number;
}

/** The outage log of one process's loops; `now` is the clock the time away is measured with. */
export function createOutageLog(logger: Logger, now: () => number = Date.now): OutageLog {
  let awaySince: number | null = null;
  let backSince: number | null = null;
  let recoveries = 0;
  let outages = 0;
  return {
    begin() {
      return { recoveries, outages };
    },
    failed(error, began, what, fields = {}) {
      if (!isDatabaseUnavailable(error)) {
        logger.error({ ...fields, err: error }, `${what} failed`);
        return false;
      }
      if (began.recoveries < recoveries) {
        // The database has answered since this call began: this failure is the ended outage's.
        return true;
      }
      if (awaySince === null) {
        awaySince = now();
        outages += 1;
        logger.warn({ ...fields, during: what, ...errorFacts(error) }, 'database unreachable');
      }
      return true;
    },
    succeeded(began) {
      if (awaySince !== null && began.outages === outages) {
        backSince = now();
        const awayMs = backSince - awaySince;
        awaySince = null;
        recoveries += 1;
        logger.info({ awayMs }, 'database reachable again');
      }
    },
    reachableForMs() {
      if (awaySince !== null) {
        return 0;
      }
      return backSince === null ? Number.POSITIVE_INFINITY : now() - backSince;
    },
  };
}

const logs = new WeakMap<DatabaseHandle, OutageLog>();

/**
 * The outage log of everything in this process that uses `database` (created with `logger` on
 * the first call).
 */
export function outageLogOf(database: DatabaseHandle, logger: Logger): OutageLog {
  let log = logs.get(database);
  if (log === undefined) {
    log = createOutageLog(logger);
    logs.set(database, log);
  }
  return log;
}

/**
 * The code and message of an unavailability error (the first of a wrapped chain that has them):
 * a socket error's message names the address it tried, never the credentials.
 */
function errorFacts(error: unknown): { code?: string; error: string } {
  let code: string | undefined;
  let message = '';
  for (let current = error, depth = 0; depth < 5; depth += 1) {
    if (typeof current !== 'object' || current === null) {
      break;
    }
    const own = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (code === undefined && typeof own.code === 'string') {
      code = own.code;
    }
    if (message === '' && typeof own.message === 'string') {
      message = own.message;
    }
    current = own.cause;
  }
  // A refused connection to a name with several addresses is an AggregateError without a message.
  return { ...(code === undefined ? {} : { code }), error: message || code || String(error) };
}
