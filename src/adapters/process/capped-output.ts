/**
 * One output stream of a scanner process (stdout or stderr), collected with a cap: the first
 * `cap` bytes are kept for the result and the rest is dropped, so a flooding tool cannot grow the
 * worker's memory. Optionally every line is also handed to a callback as it arrives (progress
 * parsing), decoded as UTF-8 across chunk boundaries; the callback sees all output, also past the
 * cap, each line cut to `cap` characters.
 */
import { StringDecoder } from 'node:string_decoder';
import { createLineSplitter, type LineSplitter } from '../../domain/text/line-splitter.js';

export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** More than `cap` bytes arrived; the rest was dropped. */
  truncated = false;
  private readonly lines:
    | { readonly decoder: StringDecoder; readonly splitter: LineSplitter }
    | undefined;

  /**
   * `onLine` gets each line without `\n` and without a trailing `\r`; a last line without `\n`
   * comes at `end`. What it throws is swallowed: progress reporting is best effort and must not
   * crash the worker or leave a process unsupervised.
   */
  constructor(
    private readonly cap: number,
    onLine?: (line: string) => void,
  ) {
    if (onLine !== undefined) {
      const splitter = createLineSplitter({ maxChars: cap }, (text) => {
        try {
          onLine(text.endsWith('\r') ? text.slice(0, -1) : text);
        } catch {
          // Best effort by contract (see above).
        }
      });
      this.lines = { decoder: new StringDecoder('utf8'), splitter };
    }
  }

  push(chunk: Buffer): void {
    this.keep(chunk);
    if (this.lines !== undefined) {
      this.lines.splitter.write(this.lines.decoder.write(chunk));
    }
  }

  /** Delivers the last line, if it had no newline. */
  end(): void {
    if (this.lines !== undefined) {
      this.lines.splitter.write(this.lines.decoder.end());
      this.lines.splitter.end();
    }
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }

  private keep(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.size += chunk.length;
      return;
    }
    if (room > 0) {
      // A copy, so the kept slice does not pin the whole chunk in memory.
      this.chunks.push(Buffer.from(chunk.subarray(0, room)));
      this.size += room;
    }
    this.truncated = true;
  }
}
