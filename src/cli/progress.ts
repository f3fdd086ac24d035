/**
 * The live progress line of `scan --wait`: on a TTY one line rewritten in place (carriage return
 * and erase-line), elsewhere (a CI log, a pipe) a plain line at each change.
 */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressLine {
  /** Shows the line unless it is the one already shown. */
  show(line: string): void;
  /** Shows the last line and ends it with a newline. */
  end(line: string): void;
}

export function progressLine(stream: ProgressStream): ProgressLine {
  const tty = stream.isTTY === true;
  let shown: string | null = null;
  return {
    show(line) {
      if (line !== shown) {
        stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
        shown = line;
      }
    },
    end(line) {
      if (tty) {
        stream.write(`\r\x1b[2K${line}\n`);
      } else if (line !== shown) {
        stream.write(`${line}\n`);
      }
      shown = line;
    },
  };
}
