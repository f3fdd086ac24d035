#!/usr/bin/env node
// Ignores TERM, so only KILL ends it. Announces its pid once the handler is in place.
process.on('SIGTERM', () => {});
process.stdout.write(`ready ${process.pid}\n`);
setInterval(() => {}, 60_000);
