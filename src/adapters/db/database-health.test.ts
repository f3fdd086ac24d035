import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answersWithin, dataDirHasRoom } from './database-health.js';

describe('answersWithin', () => {
  it('is healthy when the query answers in time', async () => {
    expect(await answersWithin(async () => 1, 1_000)).toEqual({ ok: true });
  });

  it('says the database is not answering when the query fails or is late', async () => {
    const notAnswering = { ok: false, reason: 'the database is not answering' };
    expect(await answersWithin(() => Promise.reject(new Error('refused')), 1_000)).toEqual(
      notAnswering,
    );
    const started = Date.now();
    expect(await answersWithin(() => new Promise(() => {}), 50)).toEqual(notAnswering);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('dataDirHasRoom', () => {
  it('is healthy with room, and names DATA_DIR when below the threshold', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rampart-room-'));
    try {
      expect(await dataDirHasRoom(dir, 1)).toEqual({ ok: true });
      expect(await dataDirHasRoom(dir, Number.MAX_SAFE_INTEGER)).toEqual({
        ok: false,
        reason: `no space left on DATA_DIR ${dir}`,
      });
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('names DATA_DIR and the error when it cannot be read', async () => {
    const missing = join(tmpdir(), 'rampart-room-missing-dir');
    expect(await dataDirHasRoom(missing)).toEqual({
      ok: false,
      reason: `DATA_DIR ${missing} cannot be read (ENOENT)`,
    });
  });
});
