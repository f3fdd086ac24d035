import { describe, expect, it } from 'vitest';
import { dataDirModeProblem } from './private-data-dir.js';

describe('dataDirModeProblem', () => {
  it.each([0o40700, 0o700, 0o500, 0o1700])('accepts mode %o (owner only)', (mode) => {
    expect(dataDirModeProblem('/srv/rampart', mode)).toBeNull();
  });

  it.each([
    [0o40755, '0755'],
    [0o750, '0750'],
    [0o701, '0701'],
    [0o710, '0710'],
    [0o777, '0777'],
  ])('refuses mode %o, naming it as %s', (mode, shown) => {
    expect(dataDirModeProblem('/srv/rampart', mode)).toBe(
      `DATA_DIR /srv/rampart is open to its group or others (mode ${shown}); it holds the database and the JWT secret: run chmod 700 /srv/rampart`,
    );
  });
});
