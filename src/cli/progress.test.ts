import { describe, expect, it } from 'vitest';
import { progressLine } from './progress.js';

function recorder(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } };
}

describe('progressLine', () => {
  it('rewrites one line in place on a TTY and ends it with a newline', () => {
    const { written, stream } = recorder(true);
    const progress = progressLine(stream);
    progress.show('s1 queued 0%');
    progress.show('s1 queued 0%');
    progress.show('s1 running 40%');
    progress.end('s1 completed 100%');
    expect(written).toEqual([
      '\r\x1b[2Ks1 queued 0%',
      '\r\x1b[2Ks1 running 40%',
      '\r\x1b[2Ks1 completed 100%\n',
    ]);
  });

  it('writes a plain line at each change elsewhere', () => {
    const { written, stream } = recorder(false);
    const progress = progressLine(stream);
    progress.show('s1 running 40%');
    progress.show('s1 running 40%');
    progress.end('s1 completed 100%');
    expect(written).toEqual(['s1 running 40%\n', 's1 completed 100%\n']);
  });
});
