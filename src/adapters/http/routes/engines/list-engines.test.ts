import { describe, expect, it } from 'vitest';
import { unavailableReason } from './list-engines.js';

describe("an engine's unavailable reason", () => {
  it('is null when a live worker runs it (or, for the sentinel, one of its engines)', () => {
    expect(unavailableReason('nmap', 1, 3)).toBeNull();
    expect(unavailableReason('sentinel', 2, 3)).toBeNull();
  });

  it('tells no worker at all from workers that do not run it', () => {
    expect(unavailableReason('nmap', 0, 0)).toBe(
      'no live worker: no worker process is running, or none reaches the database',
    );
    expect(unavailableReason('zap', 0, 3)).toMatch(
      /^no live worker runs it: its scanner is not installed/,
    );
    expect(unavailableReason('sentinel', 0, 0)).toMatch(/^no live worker: /);
    expect(unavailableReason('sentinel', 0, 1)).toBe(
      'no live worker runs any of the engines it combines',
    );
  });
});
