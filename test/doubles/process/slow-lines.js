#!/usr/bin/env node
// Writes lines in pieces split mid-line and mid-character (é is 0xC3 0xA9; € is 0xE2 0x82 0xAC),
// with pauses so each piece arrives as its own chunk. The last line has no newline.
const pieces = [
  Buffer.from('progr'),
  Buffer.from('ess 10%\nprogress 5'),
  Buffer.from([0x30, 0x25, 0x0a, 0x63, 0x61, 0x66, 0xc3]),
  Buffer.from([0xa9, 0x20, 0xe2, 0x82]),
  Buffer.from([0xac, 0x0d, 0x0a]),
  Buffer.from('\nlast'),
];

let index = 0;
const next = () => {
  const piece = pieces[index++];
  if (piece === undefined) {
    return;
  }
  process.stdout.write(piece, () => setTimeout(next, 30));
};
next();
