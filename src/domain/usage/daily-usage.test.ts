import { describe, expect, it } from 'vitest';
import { dailyUsage, usageDays } from './daily-usage.js';

describe('usage over time', () => {
  it('covers the days that end with today (UTC), oldest first', () => {
    const days = usageDays(new Date('2026-03-01T23:59:59.999Z'), 3);
    expect(days).toEqual({
      start: new Date('2026-02-27T00:00:00.000Z'),
      end: new Date('2026-03-02T00:00:00.000Z'),
      dates: ['2026-02-27', '2026-02-28', '2026-03-01'],
    });
    // Just after midnight UTC, today is the new day, whatever the local zone says.
    expect(usageDays(new Date('2026-03-02T00:00:00.000Z'), 1).dates).toEqual(['2026-03-02']);
    // A leap day.
    expect(usageDays(new Date('2028-03-01T12:00:00Z'), 2).dates).toEqual([
      '2028-02-29',
      '2028-03-01',
    ]);
  });

  it('gives every day and every status, zero where nothing was counted', () => {
    const series = dailyUsage(
      ['2026-02-27', '2026-02-28', '2026-03-01'],
      [
        { date: '2026-02-27', status: 'completed', count: 4 },
        { date: '2026-02-27', status: 'failed', count: 1 },
        { date: '2026-03-01', status: 'queued', count: 2 },
        // Outside the days asked for: not shown.
        { date: '2026-02-26', status: 'completed', count: 9 },
      ],
    );
    const none = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    expect(series).toEqual([
      { date: '2026-02-27', total: 5, byStatus: { ...none, completed: 4, failed: 1 } },
      { date: '2026-02-28', total: 0, byStatus: none },
      { date: '2026-03-01', total: 2, byStatus: { ...none, queued: 2 } },
    ]);
  });
});
