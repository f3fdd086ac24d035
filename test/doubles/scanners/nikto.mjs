// TEST DOUBLE for nikto (https://github.com/sullo/nikto), which cannot be installed on the build
// machine. It is not nikto: it checks that its argv keeps to nikto's real command-line contract,
// then replays a real nikto report from ../shared/fixtures/scanner-output/nikto/ to where nikto
// writes it (`-output`). Settings (fixture, exit code, printed lines, hold) come from
// install-double.ts; see src/engines/nikto/README.md.
import { one, readArgv, refuse, replay } from './double-kit.mjs';

const TOOL = 'nikto';

/**
 * nikto's own options (GetOptions in program/plugins/nikto_core.plugin, nikto 2.5 / current
 * master): `value` for `name=s`/`=i`/`=f`,
 * `switch` for flags. Full names only; `:s` options (`until`, `Userdbs`, `useproxy`) are left out
 * because their value is optional and a double cannot tell which word would be taken.
 */
const KNOWN_FLAGS = {
  '-ask': 'value',
  '-Add-header': 'value',
  '-check6': 'switch',
  '-Cgidirs': 'value',
  '-config': 'value',
  '-dbcheck': 'switch',
  '-Display': 'value',
  '-evasion': 'value',
  '-followredirects': 'switch',
  '-Format': 'value',
  '-Help': 'switch',
  '-host': 'value',
  '-id': 'value',
  '-ipv4': 'switch',
  '-ipv6': 'switch',
  '-key': 'value',
  '-list-plugins': 'switch',
  '-maxtime': 'value',
  '-mutate': 'value',
  '-mutate-options': 'value',
  '-no404': 'switch',
  '-nointeractive': 'switch',
  '-nolookup': 'switch',
  '-noslash': 'switch',
  '-nossl': 'switch',
  '-Option': 'value',
  '-output': 'value',
  '-Pause': 'value',
  '-Plugins': 'value',
  '-port': 'value',
  '-root': 'value',
  '-RSAcert': 'value',
  '-Save': 'value',
  '-ssl': 'switch',
  '-timeout': 'value',
  '-Tuning': 'value',
  '-url': 'value',
  '-usecookies': 'switch',
  '-useragent': 'value',
  '-Version': 'switch',
  '-vhost': 'value',
  '-404code': 'value',
  '-404string': 'value',
};

const { flags, positionals } = readArgv(TOOL, process.argv.slice(2), KNOWN_FLAGS);

// nikto ignores stray words; the service never writes any, so they are refused here.
if (positionals.length > 0) {
  refuse(TOOL, `unexpected argument ${positionals[0]}`);
}
const host = one(TOOL, flags, '-host');
if (!/^https?:\/\/[^\s,]+$/.test(host)) {
  refuse(TOOL, `-host must be one http(s) URL without commas (nikto splits on them), got ${host}`);
}
if (flags.has('-url') || flags.has('-port')) {
  // nikto: "Cannot use -url and -host at the same time"; "-port cannot be used with a full URI".
  refuse(TOOL, '-url and -port cannot be combined with a full -host URL');
}
const format = one(TOOL, flags, '-Format');
if (format !== 'json') {
  refuse(TOOL, `the service asks for -Format json, got ${format}`);
}
const output = one(TOOL, flags, '-output');
if (!output.startsWith('/')) {
  refuse(TOOL, `-output must be an absolute path in the workspace, got ${output}`);
}
for (const [name, pattern] of [
  ['-Tuning', /^[0-9a-ex]{1,20}$/],
  ['-maxtime', /^[1-9][0-9]{0,5}[smh]$/],
  ['-ask', /^(yes|no|auto)$/],
  ['-Display', /^[1-4DEPSV]+$/i],
]) {
  for (const value of flags.get(name) ?? []) {
    if (!pattern.test(value)) {
      refuse(TOOL, `${name} ${value} is not a value nikto takes`);
    }
  }
}
if (flags.has('-ssl') && flags.has('-nossl')) {
  refuse(TOOL, '-ssl and -nossl exclude each other');
}

await replay(output);
