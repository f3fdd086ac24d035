#!/usr/bin/env node
// Announces its pid, then waits forever; dies on TERM (Node's default action).
process.stdout.write(`ready ${process.pid}\n`);
setInterval(() => {}, 60_000);
