import { describe, expect, it } from 'vitest';
import { processReadiness, workersReadiness } from './readiness.js';

const ready = { ready: true, reason: null };
const stopping = { ready: false, reason: 'it is stopping' };
const cannotClaim = { ready: false, reason: 'its last claim round could not reach the database' };

describe('workersReadiness', () => {
  it('is ready without workers (an API-only process)', () => {
    expect(workersReadiness([])).toEqual({ ok: true });
  });

  it('is ready while one worker can claim', () => {
    expect(workersReadiness([cannotClaim, ready])).toEqual({ ok: true });
  });

  it("is not ready when none can, with the first one's reason", () => {
    expect(workersReadiness([cannotClaim, stopping])).toEqual({
      ok: false,
      reason:
        'no scan worker of this process can claim: its last claim round could not reach the database',
    });
  });
});

describe('processReadiness', () => {
  it("answers the database's reason first, and reads the workers at each check", async () => {
    let health: { ok: true } | { ok: false; reason: string } = {
      ok: false,
      reason: 'the database is not answering',
    };
    const workers: Array<{ readiness(): typeof stopping }> = [];
    const readiness = processReadiness({ health: async () => health }, () => workers);
    workers.push({ readiness: () => stopping });
    expect(await readiness()).toEqual({ ok: false, reason: 'the database is not answering' });
    health = { ok: true };
    expect(await readiness()).toEqual({
      ok: false,
      reason: 'no scan worker of this process can claim: it is stopping',
    });
  });
});
