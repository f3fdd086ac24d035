import { describe, expect, it } from 'vitest';
import { cronProblem, decideDue, nextOccurrence, type Recurrence } from './recurrence.js';

const at = (iso: string) => new Date(iso);
const LATE = 5 * 60_000;

describe('cron recurrence', () => {
  it('refuses bad expressions, six fields and unknown time zones, with a reason', () => {
    expect(cronProblem('0 3 * * *', 'Europe/Berlin')).toBeNull();
    expect(cronProblem('0 0 3 * * *', 'UTC')).toMatch(/5 parts/);
    expect(cronProblem('not cron', 'UTC')).not.toBeNull();
    expect(cronProblem('61 * * * *', 'UTC')).not.toBeNull();
    expect(cronProblem('0 3 * * *', 'Mars/Olympus')).toBe('Mars/Olympus is not an IANA time zone');
  });

  it('fires at the same local time across the spring daylight-saving change', () => {
    const daily: Recurrence = { kind: 'cron', cron: '0 9 * * *', timeZone: 'America/New_York' };
    // 2026-03-08: New York moves from UTC-5 to UTC-4.
    const before = nextOccurrence(daily, at('2026-03-07T15:00:00Z'));
    const after = nextOccurrence(daily, before as Date);
    expect(before?.toISOString()).toBe('2026-03-08T13:00:00.000Z');
    expect(after?.toISOString()).toBe('2026-03-09T13:00:00.000Z');
    expect(nextOccurrence(daily, at('2026-03-06T15:00:00Z'))?.toISOString()).toBe(
      '2026-03-07T14:00:00.000Z',
    );
  });

  it('fires once in autumn, and a time that does not exist in spring at the next minute that does', () => {
    const berlin: Recurrence = { kind: 'cron', cron: '30 2 * * *', timeZone: 'Europe/Berlin' };
    // 2026-03-29 02:30 does not exist in Berlin: 03:00 local (01:00Z).
    expect(nextOccurrence(berlin, at('2026-03-28T12:00:00Z'))?.toISOString()).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    // 2026-10-25 02:30 happens twice in Berlin: one run.
    const first = nextOccurrence(berlin, at('2026-10-24T12:00:00Z')) as Date;
    const second = nextOccurrence(berlin, first) as Date;
    expect(second.getTime() - first.getTime()).toBeGreaterThan(23 * 3600_000);
    expect(first.toISOString()).toMatch(/^2026-10-25T0[01]:30:00.000Z$/);
    expect(second.toISOString()).toBe('2026-10-26T01:30:00.000Z');
  });
});

describe('interval recurrence', () => {
  const hourly: Recurrence = {
    kind: 'interval',
    intervalSeconds: 3600,
    anchor: at('2026-01-01T00:10:00Z'),
  };

  it('counts from its anchor', () => {
    expect(nextOccurrence(hourly, at('2025-12-31T00:00:00Z'))?.toISOString()).toBe(
      '2026-01-01T00:10:00.000Z',
    );
    expect(nextOccurrence(hourly, at('2026-01-01T00:10:00Z'))?.toISOString()).toBe(
      '2026-01-01T01:10:00.000Z',
    );
    expect(nextOccurrence(hourly, at('2026-01-01T05:59:59Z'))?.toISOString()).toBe(
      '2026-01-01T06:10:00.000Z',
    );
  });

  it('runs an occurrence on time whatever the policy', () => {
    for (const policy of ['skip', 'run_once'] as const) {
      const decision = decideDue(
        hourly,
        at('2026-01-01T03:10:00Z'),
        at('2026-01-01T03:10:02Z'),
        policy,
        LATE,
      );
      expect(decision).toEqual({
        run: at('2026-01-01T03:10:00Z'),
        missed: 0,
        nextRunAt: at('2026-01-01T04:10:00Z'),
      });
    }
  });

  it('after downtime: skip runs nothing, run_once runs the latest missed occurrence once', () => {
    const due = at('2026-01-01T03:10:00Z');
    const now = at('2026-01-01T07:30:00Z');
    expect(decideDue(hourly, due, now, 'skip', LATE)).toEqual({
      run: null,
      missed: 5,
      nextRunAt: at('2026-01-01T08:10:00Z'),
    });
    expect(decideDue(hourly, due, now, 'run_once', LATE)).toEqual({
      run: at('2026-01-01T07:10:00Z'),
      missed: 4,
      nextRunAt: at('2026-01-01T08:10:00Z'),
    });
  });

  it('an only occurrence claimed later than the lateness bound counts as missed', () => {
    const due = at('2026-01-01T03:10:00Z');
    const now = at('2026-01-01T03:20:00Z');
    expect(decideDue(hourly, due, now, 'skip', LATE).run).toBeNull();
    expect(decideDue(hourly, due, now, 'run_once', LATE).run).toEqual(due);
    expect(decideDue(hourly, due, now, 'skip', 15 * 60_000).run).toEqual(due);
  });
});

describe('cron downtime', () => {
  it('run_once runs the latest missed local occurrence', () => {
    const daily: Recurrence = { kind: 'cron', cron: '0 9 * * *', timeZone: 'Europe/Paris' };
    const decision = decideDue(
      daily,
      at('2026-06-01T07:00:00Z'),
      at('2026-06-04T12:00:00Z'),
      'run_once',
      LATE,
    );
    expect(decision).toEqual({
      run: at('2026-06-04T07:00:00Z'),
      missed: 3,
      nextRunAt: at('2026-06-05T07:00:00Z'),
    });
  });
});
