#!/usr/bin/env node
// Prints its arguments as a JSON array, to see exactly what arrived (no shell in between).
process.stdout.write(JSON.stringify(process.argv.slice(2)));
