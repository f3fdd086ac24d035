import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding } from '../../domain/findings/finding.js';
import { type NmapParseResult, parseNmapXml, severityFromCvss } from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'nmap');
const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'nmap', name), 'utf8');
const parseFixture = (name: string) => parseNmapXml(fixture(name));

const CATEGORIES = ['open-port', 'vulnerability', 'os-detection'];
const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;

/** A valid draft, and what nmap's findings hold, field by field. */
function expectNmapFinding(finding: DraftFinding): void {
  expectValidDraftFinding(finding);
  expect(finding.ruleId).toMatch(/\S/);
  expect(finding.title).toMatch(/\S/);
  expect(CATEGORIES).toContain(finding.category);
  const { host, port, protocol, url } = finding.location;
  expect(typeof host).toBe('string');
  expect(host).not.toMatch(MAC);
  expect(port === null || (Number.isInteger(port) && port >= 0 && port <= 65535)).toBe(true);
  expect(protocol === null || ['tcp', 'udp', 'sctp'].includes(protocol)).toBe(true);
  expect(url).toBeNull();
  for (const cve of finding.identifiers.cve) {
    expect(cve).toMatch(/^CVE-\d{4}-\d{4,}$/);
  }
  expect(new Set(finding.identifiers.cve).size).toBe(finding.identifiers.cve.length);
  expect(finding.identifiers.cwe).toEqual([]);
  for (const reference of finding.references) {
    expect(reference).toMatch(/^https:\/\/vulners\.com\/[a-z0-9]+\/\S+$/);
  }
  expect(finding.remediation).toBeNull();
  expect(JSON.stringify(finding.raw).length).toBeLessThan(4000);
}

function openPorts(result: NmapParseResult): string[] {
  return result.findings
    .filter((f) => f.category === 'open-port')
    .map((f) => `${f.location.host} ${f.location.port}/${f.location.protocol}`);
}

function bySeverity(findings: readonly DraftFinding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) {
    counts[finding.severity] = (counts[finding.severity] ?? 0) + 1;
  }
  return counts;
}

describe('parseNmapXml on every nmap fixture', () => {
  const names = readdirSync(FIXTURES).filter((name) => name.endsWith('.xml'));

  it('covers the seven fixture files', () => {
    expect(names).toHaveLength(7);
  });

  it.each(names)('%s: valid findings, deterministic, no throw', (name) => {
    const first = parseFixture(name);
    for (const finding of first.findings) {
      expectNmapFinding(finding);
    }
    expect(parseFixture(name)).toEqual(first);
  });
});

describe('parseNmapXml fixtures', () => {
  it('nmap 7.93 -sV on localhost: only the open port, with product and version', () => {
    const result = parseFixture('debian-7.93-localhost-version-detect.xml');
    expect(result).toMatchObject({ hostsUp: 1, hostsTotal: 1, complete: true, warnings: [] });
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      ruleId: 'open-port',
      title: 'Open port 18080/tcp (http)',
      severity: 'info',
      toolSeverity: null,
      category: 'open-port',
      location: { host: '127.0.0.1', port: 18080, protocol: 'tcp', url: null },
    });
    expect(finding?.description).toContain('SimpleHTTPServer 0.6 (Python 3.11.7)');
    expect(finding?.evidence).toContain('cpe: cpe:/a:python:simplehttpserver:0.6');
  });

  it('IPv6-only host: the ipv6 address is the location, the hosthint is not a second host', () => {
    const result = parseFixture('ipv6-single-host.xml');
    expect(result).toMatchObject({ hostsUp: 1, hostsTotal: 1, complete: true, warnings: [] });
    expect(openPorts(result)).toEqual([
      '2600:3c01::f03c:91ff:fe18:bb2f 22/tcp',
      '2600:3c01::f03c:91ff:fe18:bb2f 80/tcp',
      '2600:3c01::f03c:91ff:fe18:bb2f 31337/tcp',
    ]);
    expect(result.findings.map((f) => f.title)).toContain('Open port 31337/tcp (Elite)');
  });

  it('skipped invalid target: no findings and a warning with the reason', () => {
    const result = parseFixture('no-hosts-invalid-target.xml');
    expect(result).toMatchObject({ findings: [], hostsUp: 0, hostsTotal: 0, complete: true });
    expect(result.warnings).toEqual([
      'nmap skipped target "http://localhost" (reason: invalid)',
      'nmap reported no hosts: nothing was scanned',
    ]);
  });

  it('nmap 5.21 /24 sweep: 4 up hosts of 256, MAC addresses never a location', () => {
    const result = parseFixture('old-5.21-subnet-256-hosts.xml');
    expect(result).toMatchObject({ hostsUp: 4, hostsTotal: 256, complete: true, warnings: [] });
    expect(openPorts(result)).toEqual([
      '192.168.1.1 23/tcp',
      '192.168.1.1 80/tcp',
      '192.168.1.1 443/tcp',
      '192.168.1.1 992/tcp',
      '192.168.1.1 8080/tcp',
      '192.168.1.1 8443/tcp',
      '192.168.1.4 22/tcp',
      '192.168.1.4 80/tcp',
      '192.168.1.4 111/tcp',
      '192.168.1.5 2869/tcp',
      '192.168.1.5 5357/tcp',
    ]);
    const os = result.findings.filter((f) => f.category === 'os-detection');
    expect(os.map((f) => [f.location.host, f.title])).toEqual([
      ['192.168.1.1', 'Operating system: Chumby Internet radio'],
      [
        '192.168.1.5',
        'Operating system: Microsoft Windows Vista SP0 or SP1, Server 2008 SP1, or Windows 7',
      ],
    ]);
    expect(os[0]?.location).toEqual({ host: '192.168.1.1', port: null, protocol: null, url: null });
    const telnetSsl = result.findings.find((f) => f.location.port === 992);
    expect(telnetSsl?.title).toBe('Open port 992/tcp (ssl/telnet)');
    expect(telnetSsl?.description).toContain('Sagem router telnetd');
  });

  it('-sV -O --script default,safe: ports, script evidence, OS and vulners on memcached', () => {
    const result = parseFixture('services-os-scripts-all-ports.xml');
    expect(result).toMatchObject({ hostsUp: 1, hostsTotal: 1, complete: true, warnings: [] });
    expect(openPorts(result)).toHaveLength(16);
    expect(result.findings.every((f) => f.location.host === '172.28.1.3')).toBe(true);
    const https = result.findings.find((f) => f.location.port === 443 && f.ruleId === 'open-port');
    expect(https?.title).toBe('Open port 443/tcp (ssl/https)');
    expect(https?.evidence).toContain('script ssl-cert: Subject: commonName=Nepenthes');
    const vulns = result.findings.filter((f) => f.category === 'vulnerability');
    expect(vulns.map((f) => [f.ruleId, f.severity, f.toolSeverity, f.location.port])).toEqual([
      ['CVE-2016-8705', 'high', '7.5', 11211],
      ['CVE-2016-8704', 'high', '7.5', 11211],
      ['CVE-2016-8706', 'medium', '6.8', 11211],
      ['CVE-2018-1000127', 'medium', '5.0', 11211],
      ['CVE-2017-9951', 'medium', '5.0', 11211],
      ['PACKETSTORM:139572', 'info', '0.0', 11211],
    ]);
    expect(vulns[0]).toMatchObject({
      title: 'CVE-2016-8705 in Memcached 1.4.25 on 11211/tcp',
      identifiers: { cve: ['CVE-2016-8705'], cwe: [] },
      references: ['https://vulners.com/cve/CVE-2016-8705'],
    });
    // The port's own finding keeps the other scripts but not the vulners list.
    const memcached = result.findings.find(
      (f) => f.ruleId === 'open-port' && f.location.port === 11211,
    );
    expect(memcached?.evidence).toContain('script unusual-port: memcached unexpected');
    expect(memcached?.evidence).not.toContain('CVE-2016-8705');
    const os = result.findings.filter((f) => f.category === 'os-detection');
    expect(os.map((f) => f.title)).toEqual(['Operating system: Linux 4.15 - 5.6']);
    expect(bySeverity(result.findings)).toEqual({ info: 18, medium: 3, high: 2 });
  });

  it('vulners on OpenSSH 7.4: one finding per CVE, exploits naming it folded in', () => {
    const result = parseFixture('vulners-script-cves.xml');
    expect(result).toMatchObject({ hostsUp: 1, hostsTotal: 1, complete: true, warnings: [] });
    expect(openPorts(result)).toHaveLength(25);
    const cves = result.findings.filter(
      (f) => f.identifiers.cve.length > 0 && f.ruleId.startsWith('CVE-'),
    );
    expect(cves.map((f) => [f.ruleId, f.severity, f.toolSeverity])).toEqual([
      ['CVE-2019-6111', 'medium', '5.8'],
      ['CVE-2018-15919', 'medium', '5.0'],
      ['CVE-2018-15473', 'medium', '5.0'],
      ['CVE-2017-15906', 'medium', '5.0'],
      ['CVE-2020-14145', 'medium', '4.3'],
      ['CVE-2019-6110', 'medium', '4.0'],
      ['CVE-2019-6109', 'medium', '4.0'],
      ['CVE-2018-20685', 'low', '2.6'],
    ]);
    const scp = cves[0];
    expect(scp).toMatchObject({
      title: 'CVE-2019-6111 in OpenSSH 7.4 on 22/tcp',
      category: 'vulnerability',
      location: { host: '10.250.195.71', port: 22, protocol: 'tcp', url: null },
      identifiers: { cve: ['CVE-2019-6111'], cwe: [] },
    });
    // 18 Metasploit checks name CVE-2019-6111 and become references of that one finding.
    expect(scp?.references).toHaveLength(19);
    expect(scp?.references[0]).toBe('https://vulners.com/cve/CVE-2019-6111');
    expect(scp?.references).toContain(
      'https://vulners.com/metasploit/MSF:ILITIES/DEBIAN-CVE-2019-6111/',
    );
    expect(scp?.evidence).toContain('MSF:ILITIES/UBUNTU-CVE-2019-6111/ (metasploit)');
    // Exploits that name no listed CVE stand alone; one names a CVE vulners did not list.
    const exploits = result.findings.filter(
      (f) => f.category === 'vulnerability' && !f.ruleId.startsWith('CVE-'),
    );
    expect(exploits).toHaveLength(16);
    expect(exploits.find((f) => f.ruleId === 'EDB-ID:46516')).toMatchObject({
      title: 'Public exploit EDB-ID:46516 (exploitdb) in OpenSSH 7.4 on 22/tcp',
      severity: 'medium',
      toolSeverity: '5.8',
      identifiers: { cve: [] },
      references: ['https://vulners.com/exploitdb/EDB-ID:46516'],
    });
    expect(
      exploits.find((f) => f.ruleId === 'MSF:ILITIES/SUSE-CVE-2019-25017/')?.identifiers.cve,
    ).toEqual(['CVE-2019-25017']);
    expect(bySeverity(result.findings)).toEqual({ info: 29, medium: 19, low: 1 });
  });

  it('cut-off scan (no </nmaprun>): the complete host is kept, complete is false', () => {
    const result = parseFixture('truncated-no-closing-tag.xml');
    expect(result).toMatchObject({ hostsUp: 1, hostsTotal: 1, complete: false });
    expect(openPorts(result)).toEqual([
      '127.0.0.1 22/tcp',
      '127.0.0.1 25/tcp',
      '127.0.0.1 111/tcp',
      '127.0.0.1 631/tcp',
      '127.0.0.1 3306/tcp',
    ]);
    expect(result.warnings).toEqual([
      'nmap XML is truncated (no </nmaprun>): the scan did not finish; findings come from the 1 complete <host> element(s)',
    ]);
  });
});

describe('parseNmapXml salvage', () => {
  it('keeps every complete host of a subnet sweep cut inside a later host', () => {
    const xml = fixture('old-5.21-subnet-256-hosts.xml');
    const cut = xml.slice(0, xml.indexOf('portid="5357"'));
    const result = parseNmapXml(cut);
    expect(result).toMatchObject({ hostsUp: 3, hostsTotal: null, complete: false });
    expect(new Set(result.findings.map((f) => f.location.host))).toEqual(
      new Set(['192.168.1.1', '192.168.1.4']),
    );
    expect(openPorts(result)).toHaveLength(9);
  });

  it('drops a host cut in the middle of a port element', () => {
    const xml = fixture('truncated-no-closing-tag.xml');
    const result = parseNmapXml(xml.slice(0, xml.indexOf('portid="111"') + 5));
    expect(result).toMatchObject({ findings: [], hostsUp: 0, hostsTotal: null, complete: false });
    expect(result.warnings[0]).toMatch(/^nmap XML is truncated/);
  });

  it('gives a warning when the output stops inside the root start tag', () => {
    const result = parseNmapXml('<?xml version="1.0"?>\n<nmaprun scanner="nmap" args="nm');
    expect(result).toMatchObject({ findings: [], complete: false });
    expect(result.warnings).toEqual([
      'nmap XML ends inside the <nmaprun> start tag: no host was written',
    ]);
  });
});

/** A minimal nmap document with the given host elements. */
function nmaprun(hosts: string, runstats = '<hosts up="1" down="0" total="1"/>'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE nmaprun>
<nmaprun scanner="nmap" version="7.93" xmloutputversion="1.05">
${hosts}
<runstats><finished time="1" exit="success"/>${runstats}</runstats>
</nmaprun>
`;
}

function host(addresses: string, ports: string, state = 'up'): string {
  return `<host><status state="${state}" reason="syn-ack"/>${addresses}<ports>${ports}</ports></host>`;
}

const V4 = '<address addr="192.0.2.10" addrtype="ipv4"/>';
const PORT_80 =
  '<port protocol="tcp" portid="80"><state state="open" reason="syn-ack"/><service name="http"/></port>';

describe('parseNmapXml edge cases', () => {
  it.each([
    ['an empty string', '', 'nmap wrote no XML output'],
    ['whitespace', ' \n\t ', 'nmap wrote no XML output'],
    [
      'plain text',
      'Failed to resolve "nonexistent.invalid".',
      'the output is not nmap XML: no <nmaprun> element',
    ],
    ['JSON', '{"nmaprun": {"host": []}}', 'the output is not nmap XML: no <nmaprun> element'],
    [
      'another XML document',
      '<?xml version="1.0"?><report><host/></report>',
      'the output is not nmap XML: no <nmaprun> element',
    ],
    [
      'binary noise',
      '\u0000\u00ff\ufffd<<<>>>\u0001',
      'the output is not nmap XML: no <nmaprun> element',
    ],
  ])('%s: zero findings and one warning', (_name, input, warning) => {
    const result = parseNmapXml(input);
    expect(result).toEqual({
      findings: [],
      warnings: [warning],
      hostsUp: 0,
      hostsTotal: null,
      complete: false,
    });
  });

  it('invalid UTF-8 bytes (decoded with replacement characters) do not stop the parse', () => {
    // Latin-1 "é" and stray bytes in a reverse-DNS name, as a misconfigured resolver may return.
    const before = `<nmaprun><host><status state="up"/>${V4}<hostnames><hostname name="caf`;
    const after = `" type="PTR"/></hostnames><ports>${PORT_80}</ports></host></nmaprun>`;
    const bytes = Buffer.concat([
      Buffer.from(before),
      Buffer.from([0xe9, 0xff, 0xc3]),
      Buffer.from(after),
    ]);
    const result = parseNmapXml(bytes.toString('utf8'));
    expect(openPorts(result)).toEqual(['192.0.2.10 80/tcp']);
    expect(result.findings[0]?.description).toContain('caf\ufffd');
  });

  it('non-UTF-8 noise inside an nmap document is a warning, not an exception', () => {
    const noisy = Buffer.from([
      0x3c, 0x6e, 0x6d, 0x61, 0x70, 0x72, 0x75, 0x6e, 0xff, 0x3c, 0x3c, 0x2f,
    ]);
    const result = parseNmapXml(noisy.toString('utf8'));
    expect(result.findings).toEqual([]);
    expect(result.complete).toBe(false);
    expect(result.warnings).toHaveLength(1);
  });

  it('refuses a DOCTYPE with an external entity instead of loading it', () => {
    const xml = `<?xml version="1.0"?>
<!DOCTYPE nmaprun [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<nmaprun>${host(V4, '<port protocol="tcp" portid="80"><state state="open"/><service name="http" product="&xxe;"/></port>')}</nmaprun>`;
    const result = parseNmapXml(xml);
    expect(result.findings).toEqual([]);
    expect(result.warnings).toEqual([
      'nmap XML is not well-formed: External entities are not supported',
    ]);
  });

  it('never expands internal DTD entities (no billion laughs)', () => {
    const xml = `<?xml version="1.0"?>
<!DOCTYPE nmaprun [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
]>
<?xml-stylesheet href="file:///etc/passwd" type="text/xsl"?>
<nmaprun>${host(V4, '<port protocol="tcp" portid="80"><state state="open"/><service name="http" product="&lol;" version="&lol2;"/></port>')}</nmaprun>`;
    const [finding] = parseNmapXml(xml).findings;
    expect(finding?.description).toContain('Service: http, &lol; &lol2;.');
  });

  it('decodes the XML entities and character references of the values it uses', () => {
    const port =
      '<port protocol="tcp" portid="80"><state state="open"/><service name="http" product="A &amp; B" extrainfo="&lt;x&gt;&#9;&#x263A;&#0;"/><script id="t" output="&#xa;  line&quot;&apos;"/></port>';
    const [finding] = parseNmapXml(nmaprun(host(V4, port))).findings;
    expect(finding?.description).toContain('A & B (<x>\t\u263a\ufffd)');
    expect(finding?.evidence).toContain('script t: line"\'');
  });

  it('reports open ports only: open|filtered is counted in a warning, closed and filtered ignored', () => {
    const ports = ['open', 'open|filtered', 'closed', 'filtered', 'unfiltered', 'closed|filtered']
      .map((state, i) => `<port protocol="udp" portid="${50 + i}"><state state="${state}"/></port>`)
      .join('');
    const result = parseNmapXml(nmaprun(host(V4, ports)));
    expect(openPorts(result)).toEqual(['192.0.2.10 50/udp']);
    expect(result.findings[0]?.title).toBe('Open port 50/udp');
    expect(result.warnings).toEqual([
      '1 port(s) were open|filtered (no answer, typical for UDP) and are not reported as open',
    ]);
  });

  it.each([
    [
      'ipv4 before ipv6 and mac',
      `<address addr="AA:BB:CC:DD:EE:FF" addrtype="mac"/><address addr="2001:db8::1" addrtype="ipv6"/>${V4}`,
      '192.0.2.10',
    ],
    [
      'ipv6 before mac',
      '<address addr="AA:BB:CC:DD:EE:FF" addrtype="mac"/><address addr="2001:db8::1" addrtype="ipv6"/>',
      '2001:db8::1',
    ],
    [
      'a host name when there is no IP',
      '<address addr="AA:BB:CC:DD:EE:FF" addrtype="mac"/><hostnames><hostname name="printer.lan" type="PTR"/></hostnames>',
      'printer.lan',
    ],
  ])('location host: %s', (_name, addresses, expected) => {
    const result = parseNmapXml(nmaprun(host(addresses, PORT_80)));
    expect(result.findings[0]?.location.host).toBe(expected);
  });

  it('warns when no scanned host was up', () => {
    const result = parseNmapXml(
      nmaprun(host(V4, '', 'down') + host(V4, '', 'down'), '<hosts up="0" down="2" total="2"/>'),
    );
    expect(result).toMatchObject({ findings: [], hostsUp: 0, hostsTotal: 2, complete: true });
    expect(result.warnings).toEqual(['none of the 2 host(s) nmap scanned was up']);
  });

  it('passes on an error nmap wrote into runstats', () => {
    const xml = nmaprun('').replace(
      '<finished time="1" exit="success"/>',
      '<finished time="1" exit="error" errormsg="Failed to open device eth9"/>',
    );
    expect(parseNmapXml(xml).warnings).toContain(
      'nmap reported an error: Failed to open device eth9',
    );
  });

  it('reads a host without attributes and with single-quoted attributes', () => {
    const xml = nmaprun(
      "<host><status state='up'/><address addr='192.0.2.11' addrtype='ipv4'/><ports><port protocol='tcp' portid='22'><state state='open'/></port></ports></host>",
    );
    expect(openPorts(parseNmapXml(xml))).toEqual(['192.0.2.11 22/tcp']);
  });

  it('stays linear: 20,000 hosts (2,000 up) parse in a fraction of a second', () => {
    const hosts = Array.from({ length: 20_000 }, (_, i) =>
      host(
        `<address addr="10.${i >> 8}.${i & 255}.1" addrtype="ipv4"/>`,
        i % 10 === 0 ? PORT_80 : '',
        i % 10 === 0 ? 'up' : 'down',
      ),
    ).join('\n');
    const started = performance.now();
    const result = parseNmapXml(nmaprun(hosts, '<hosts up="2000" down="18000" total="20000"/>'));
    expect(performance.now() - started).toBeLessThan(3000);
    expect(result.hostsUp).toBe(2000);
    expect(result.findings).toHaveLength(2000);
  });
});

describe('severityFromCvss', () => {
  it.each([
    ['0.0', 'info'],
    ['0', 'info'],
    ['0.1', 'low'],
    ['3.9', 'low'],
    ['4.0', 'medium'],
    ['6.9', 'medium'],
    ['7.0', 'high'],
    ['8.9', 'high'],
    ['9.0', 'critical'],
    ['10.0', 'critical'],
    [null, 'info'],
    ['', 'info'],
    ['n/a', 'info'],
  ])('CVSS %j is %s', (cvss, severity) => {
    expect(severityFromCvss(cvss)).toBe(severity);
  });
});
