/**
 * The `rampart` command (commander). Over HTTP, through the typed client and a stored profile:
 * login, scan, scans, results, engines, keys, usage, webhooks, templates, assets, schedules,
 * issues, admin. On this machine's configuration: token, migrate. Exit codes: 0 success, 1 error,
 * 2 usage, 3 `scan --wait --fail-on` found a finding at or above the severity (runner.ts).
 */
import { Command, type CommanderError } from 'commander';
import { packageVersion } from '../config/package-version.js';
import { registerLocal } from './commands/local.js';
import { registerLogin } from './commands/login.js';
import { registerResources } from './commands/resources.js';
import { registerScans } from './commands/scans.js';
import { EXIT_OK, EXIT_USAGE } from './runner.js';

export { parseTtl } from './commands/local.js';

/** Help and version end with 0; every other commander error is a usage error (2). */
function exitOf(error: CommanderError): never {
  const ok = ['commander.helpDisplayed', 'commander.help', 'commander.version'];
  process.exit(ok.includes(error.code) ? EXIT_OK : EXIT_USAGE);
}

export function buildProgram(): Command {
  const program = new Command('rampart')
    .description('Rampart, the multi-tenant security scanning service, from the command line')
    .version(packageVersion(), '-V, --version', "print rampart's version")
    .option('--profile <name>', 'the stored profile to use', 'default')
    .option('--json', "print the API's data as JSON (for scripts)")
    .showHelpAfterError('(rampart <command> --help for usage)')
    .exitOverride(exitOf);
  registerLogin(program);
  registerScans(program);
  registerResources(program);
  registerLocal(program);
  return program;
}

await buildProgram().parseAsync(process.argv);
