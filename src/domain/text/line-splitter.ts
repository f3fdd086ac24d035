/**
 * The one line splitter of the service: text arriving in chunks of any size (a process's output,
 * a report streamed through its parser) cut into lines, each kept to its first `maxChars`
 * characters, so input without newlines can never grow memory. Pure: no I/O, no decoding (callers
 * feed decoded text).
 */

export interface LineSplitterOptions {
  /** The most characters of a line kept; the rest of a longer line is dropped and flagged. */
  readonly maxChars: number;
  /** `\r` ends a line too (a lone `\r`, as old tools print; CRLF then gives an empty line). */
  readonly carriageReturnEndsLine?: boolean;
}

export interface LineSplitter {
  write(chunk: string): void;
  /** Emits the last line if it has no newline; nothing may be written after. */
  end(): void;
}

/**
 * `onLine(text, cut)` gets every line without its newline (a `\r` before it stays unless
 * `carriageReturnEndsLine`), `cut` telling that the line was longer than `maxChars`.
 *
 * @example
 * const lines: string[] = [];
 * const splitter = createLineSplitter({ maxChars: 3 }, (text) => lines.push(text));
 * splitter.write('ab\ncdef'); splitter.write('g\n'); splitter.end(); // lines: ['ab', 'cde']
 */
export function createLineSplitter(
  options: LineSplitterOptions,
  onLine: (text: string, cut: boolean) => void,
): LineSplitter {
  const { maxChars } = options;
  const breaks = options.carriageReturnEndsLine === true ? /[\r\n]/g : /\n/g;
  let pending = '';
  let cut = false;

  const append = (piece: string) => {
    if (cut || piece === '') {
      return;
    }
    const room = maxChars - pending.length;
    if (piece.length > room) {
      pending += piece.slice(0, Math.max(room, 0));
      cut = true;
    } else {
      pending += piece;
    }
  };
  const emit = () => {
    const text = pending;
    const wasCut = cut;
    pending = '';
    cut = false;
    onLine(text, wasCut);
  };

  return {
    write(chunk) {
      let start = 0;
      breaks.lastIndex = 0;
      for (let match = breaks.exec(chunk); match !== null; match = breaks.exec(chunk)) {
        append(chunk.slice(start, match.index));
        emit();
        start = match.index + 1;
      }
      append(chunk.slice(start));
    },
    end() {
      if (pending !== '') {
        emit();
      }
    },
  };
}
