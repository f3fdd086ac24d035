#!/usr/bin/env node
// Writes argv[2] bytes of "x" to stdout and to stderr (respecting back-pressure), then exits 0.
const total = Number(process.argv[2]);
const chunk = Buffer.alloc(64 * 1024, 'x');

function pump(stream, done) {
  let left = total;
  const write = () => {
    while (left > 0) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      if (!stream.write(piece)) {
        stream.once('drain', write);
        return;
      }
    }
    done();
  };
  write();
}

pump(process.stdout, () => pump(process.stderr, () => {}));
