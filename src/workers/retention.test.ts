import { describe, expect, it } from 'vitest';
import { retentionPlan } from './retention.js';

const config = {
  eventsDays: 30,
  deliveriesDays: 7,
  findingsDays: 0,
  batchSize: 10,
  intervalMs: 1000,
};
const now = new Date('2026-11-26T12:00:00.000Z');

describe('retentionPlan', () => {
  it('gives each kind with days above 0 its cutoff, days before now', () => {
    expect(retentionPlan(config, now)).toEqual([
      { what: 'scan events', before: new Date('2026-10-27T12:00:00.000Z') },
      { what: 'deliveries', before: new Date('2026-11-19T12:00:00.000Z') },
    ]);
  });

  it('deletes nothing when every kind is kept forever', () => {
    expect(retentionPlan({ ...config, eventsDays: 0, deliveriesDays: 0 }, now)).toEqual([]);
  });

  it('includes findings only when RETENTION_FINDINGS_DAYS is set', () => {
    expect(retentionPlan({ ...config, findingsDays: 1 }, now).map((step) => step.what)).toEqual([
      'scan events',
      'deliveries',
      'findings',
    ]);
  });
});
