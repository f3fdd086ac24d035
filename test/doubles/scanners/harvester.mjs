// TEST DOUBLE for theHarvester (laramies/theHarvester), which cannot be installed here. It is NOT
// theHarvester: it checks its argv against theHarvester's real command line (argparse in
// theHarvester/__main__.py), prints the lines theHarvester prints for that argv, and replays a
// real theHarvester report from ../shared/fixtures/scanner-output/harvester/ to where theHarvester
// writes it. Installed and configured by test/doubles/scanners/install-double.ts.
import { readArgv, refuse, replay } from './double-kit.mjs';

const TOOL = 'theHarvester';

/**
 * theHarvester's real flags (current releases), short and long spellings. Left out: `-r/--dns-resolve`,
 * whose value is optional (argparse `nargs='?'`), which the kit cannot model; Rampart never sends it,
 * so the double refuses it.
 */
const KNOWN_FLAGS = {
  '-h': 'switch',
  '--help': 'switch',
  '-d': 'value',
  '--domain': 'value',
  '-l': 'value',
  '--limit': 'value',
  '-S': 'value',
  '--start': 'value',
  '-p': 'switch',
  '--proxies': 'switch',
  '-s': 'switch',
  '--shodan': 'switch',
  '--screenshot': 'value',
  '-e': 'value',
  '--dns-server': 'value',
  '-t': 'switch',
  '--take-over': 'switch',
  '-n': 'switch',
  '--dns-lookup': 'switch',
  '-c': 'switch',
  '--dns-brute': 'switch',
  '-f': 'value',
  '--filename': 'value',
  '-w': 'value',
  '--wordlist': 'value',
  '-a': 'switch',
  '--api-scan': 'switch',
  '-q': 'switch',
  '--quiet': 'switch',
  '--verbose': 'switch',
  '-b': 'value',
  '--source': 'value',
};

/**
 * The source names theHarvester's `-b` accepts (its source catalog, `lib/source_catalog.py`), plus
 * `all` and the capability selectors. An unknown name makes theHarvester print "Invalid source" and
 * exit 1, which the double does too.
 */
const SOURCES = new Set([
  'arquivo',
  'baidu',
  'bevigil',
  'brave',
  'bufferoverun',
  'builtwith',
  'censys',
  'certspotter',
  'chaos',
  'commoncrawl',
  'criminalip',
  'crtsh',
  'dehashed',
  'dnsdb',
  'dnsdumpster',
  'duckduckgo',
  'dymo',
  'fofa',
  'fullhunt',
  'github-code',
  'gitlab',
  'hackertarget',
  'haveibeenpwned',
  'hibpverified',
  'hudsonrock',
  'hunter',
  'hunterhow',
  'intelx',
  'leakix',
  'leaklookup',
  'mojeek',
  'netlas',
  'onyphe',
  'otx',
  'pentesttools',
  'projectdiscovery',
  'rapiddns',
  'robtex',
  'rocketreach',
  'securityTrails',
  'securityscorecard',
  'sherlockeye',
  'shodan',
  'shodanInternetDB',
  'shodanct',
  'subdomaincenter',
  'subdomainfinderc99',
  'thc',
  'tomba',
  'urlscan',
  'virustotal',
  'waybackarchive',
  'whoisxml',
  'windvane',
  'yahoo',
  'zoomeye',
  'all',
  'subdomains',
  'emails',
  'ips',
  'asns',
  'urls',
  'people',
]);

const BLUE = '\u001b[94m';

/** All values of a flag given in its short or long spelling. */
function values(flags, short, long) {
  return [...(flags.get(short) ?? []), ...(flags.get(long) ?? [])];
}

function onlyOnce(flags, short, long) {
  const given = values(flags, short, long);
  if (given.length > 1) {
    refuse(TOOL, `${long} given ${given.length} times`);
  }
  return given[0];
}

const { flags, positionals } = readArgv(TOOL, process.argv.slice(2), KNOWN_FLAGS);
if (positionals.length > 0) {
  // argparse: "error: unrecognized arguments".
  refuse(TOOL, `unrecognized arguments: ${positionals.join(' ')}`);
}
const domain = onlyOnce(flags, '-d', '--domain');
if (domain === undefined) {
  refuse(TOOL, 'the following arguments are required: -d/--domain');
}
if (!/^[a-z0-9_][a-z0-9_.-]{0,252}$/i.test(domain)) {
  refuse(TOOL, `--domain is not a domain: ${JSON.stringify(domain)}`);
}
const limit = onlyOnce(flags, '-l', '--limit');
if (limit !== undefined && !/^[0-9]+$/.test(limit)) {
  refuse(TOOL, `argument -l/--limit: invalid int value: ${JSON.stringify(limit)}`);
}
const source = onlyOnce(flags, '-b', '--source');
const sources = source === undefined ? [] : source.split(',').map((name) => name.trim());
const unsupported = sources.filter((name) => !SOURCES.has(name));
const filename = onlyOnce(flags, '-f', '--filename');

process.stdout.write('*******************************************************************\n');
process.stdout.write('* theHarvester 4.x (Rampart test double)                          *\n');
process.stdout.write('*******************************************************************\n');
if (unsupported.length > 0) {
  process.stdout.write(
    `The following engines are not supported: {'${unsupported.join("', '")}'}\n`,
  );
  process.stdout.write('\n[!] Invalid source.\n\n');
  process.exit(1);
}
process.stdout.write(`${BLUE}[*] Target: ${domain} \n \u001b[0m\n`);
for (const name of sources) {
  process.stdout.write(`${BLUE}[*] Searching ${name[0].toUpperCase()}${name.slice(1)}. \n`);
}

// theHarvester writes <name>.json after dropping the extension of --filename (os.path.splitext).
const reportPath =
  filename === undefined ? null : filename.replace(/\.[^./]*$/, '').concat('.json');
await replay(reportPath);
