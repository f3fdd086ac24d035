#!/usr/bin/env node
// Writes argv[3] to stdout and argv[4] to stderr, then exits with code argv[2].
const [code = '0', out = '', err = ''] = process.argv.slice(2);
process.stdout.write(out);
process.stderr.write(err);
process.exitCode = Number(code);
