import { describe, expect, it } from 'vitest';
import { moveCtes } from './scan-moves.js';

describe('moveCtes', () => {
  it("takes the move's from list as the WHERE clause and writes its event", () => {
    const sql = moveCtes('moved', 'cancel', { set: ['completed_at = now()'], where: ['x'] });
    expect(sql).toContain("set status = 'cancelled', completed_at = now()");
    expect(sql).toContain("where scans.status in ('queued', 'running') and x");
    expect(sql).toContain('moved_events as (insert into scan_events');
    expect(sql).toContain("'scan.cancelled'");
  });

  it('writes no event for the internal requeue', () => {
    const sql = moveCtes('back', 'requeue', { set: [], where: [] });
    expect(sql).toContain("set status = 'queued'");
    expect(sql).not.toContain('scan_events');
  });

  it('narrows the from list with `only`, and refuses a status the move cannot come from', () => {
    expect(moveCtes('lost', 'fail', { set: [], where: [], only: ['running'] })).toContain(
      "where scans.status in ('running')",
    );
    expect(() => moveCtes('bad', 'complete', { set: [], where: [], only: ['queued'] })).toThrow(
      TypeError,
    );
  });
});
