import { describe, expect, it } from 'vitest';
import { ENGINES } from '../../engines/registry.js';
import { parseTarget } from './parse-target.js';
import type { TargetType } from './target.js';

const ALL: readonly TargetType[] = ['host', 'url', 'domain', 'ip', 'network', 'image'];
const DIGEST = `sha256:${'ab12'.repeat(16)}`;
const LABEL_63 = 'a'.repeat(63);
// 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 characters.
const NAME_253 = `${LABEL_63}.${LABEL_63}.${LABEL_63}.${'b'.repeat(61)}`;

function reasonOf(value: unknown, type: string | undefined, types = ALL, scanType?: string) {
  const result = parseTarget(value, type, types, scanType);
  expect(result.ok).toBe(false);
  return result.ok ? '' : result.reason;
}

describe('parseTarget: valid targets of each type', () => {
  it.each([
    ['http://example.com', 'url', 'example.com', false],
    ['https://example.com/', 'url', 'example.com', false],
    ["http://example.com/a?b=1&c=2;d='$x'", 'url', 'example.com', false],
    ['http://example.com/$(id)/a%3Bb?x=<y>', 'url', 'example.com', false],
    ['HTTPS://Example.COM:8443/Path', 'url', 'example.com', false],
    ['http://localhost:8080/', 'url', 'localhost', false],
    ['http://127.0.0.1/', 'url', '127.0.0.1', true],
    ['http://[::1]:8080/x', 'url', '::1', true],
    ['http://[2001:DB8::1]/', 'url', '2001:db8::1', true],
    ['http://[::ffff:127.0.0.1]/', 'url', '::ffff:127.0.0.1', true],
    ['https://xn--bcher-kva.example/', 'url', 'xn--bcher-kva.example', false],
    ['http://example.com#top', 'url', 'example.com', false],
    ['http://example.com?q=1', 'url', 'example.com', false],
    ['http://example.com:65535', 'url', 'example.com', false],
    ['127.0.0.1', 'ip', '127.0.0.1', true],
    ['8.8.8.8', 'ip', '8.8.8.8', true],
    ['0.0.0.0', 'ip', '0.0.0.0', true],
    ['255.255.255.255', 'ip', '255.255.255.255', true],
    ['::1', 'ip', '::1', true],
    ['2001:DB8::1', 'ip', '2001:db8::1', true],
    ['::ffff:127.0.0.1', 'ip', '::ffff:127.0.0.1', true],
    ['fe80::1', 'ip', 'fe80::1', true],
    ['10.0.0.0/16', 'network', '10.0.0.0', true],
    ['192.0.2.0/24', 'network', '192.0.2.0', true],
    ['192.0.2.1/32', 'network', '192.0.2.1', true],
    ['2001:db8::/112', 'network', '2001:db8::', true],
    ['2001:db8::1/128', 'network', '2001:db8::1', true],
    ['example.com', 'domain', 'example.com', false],
    ['Example.COM', 'domain', 'example.com', false],
    ['a.b.c.d.example', 'domain', 'a.b.c.d.example', false],
    ['xn--bcher-kva.example', 'domain', 'xn--bcher-kva.example', false],
    ['1.example', 'domain', '1.example', false],
    ['r3--sn-abc.googlevideo.com', 'domain', 'r3--sn-abc.googlevideo.com', false],
    // Digit labels that nmap does not read as a range: three or five of them, or a letter.
    ['10.0.1-2.example', 'domain', '10.0.1-2.example', false],
    ['1.2.3-4', 'domain', '1.2.3-4', false],
    ['1.2.3.4.5-6', 'domain', '1.2.3.4.5-6', false],
    ['1.2.3.4-5a', 'domain', '1.2.3.4-5a', false],
    [`${LABEL_63}.example`, 'domain', `${LABEL_63}.example`, false],
    [NAME_253, 'domain', NAME_253, false],
    ['localhost', 'host', 'localhost', false],
    ['LOCALHOST', 'host', 'localhost', false],
    ['my-host', 'host', 'my-host', false],
    ['example.com', 'host', 'example.com', false],
    ['127.0.0.1', 'host', '127.0.0.1', true],
    ['::1', 'host', '::1', true],
    ['alpine', 'image', null, false],
    ['alpine:3.19', 'image', null, false],
    ['library/alpine:latest', 'image', null, false],
    ['ghcr.io/owner/app:v1.2.3', 'image', 'ghcr.io', false],
    ['docker.io/library/nginx:1.25-alpine', 'image', 'docker.io', false],
    ['localhost:5000/app', 'image', 'localhost', false],
    ['127.0.0.1:5000/app:dev', 'image', '127.0.0.1', true],
    ['[::1]:5000/app', 'image', '::1', true],
    [`registry.example.com:443/team/app@${DIGEST}`, 'image', 'registry.example.com', false],
    [`alpine:3.19@${DIGEST}`, 'image', null, false],
    ['a/b/c_d__e-f.g---h', 'image', null, false],
    ['Registry.Example.com/app', 'image', 'registry.example.com', false],
  ] as const)('%s as %s', (value, type, host, hostIsAddress) => {
    expect(parseTarget(value, type, ALL)).toEqual({
      ok: true,
      target: { value, type, host, hostIsAddress },
    });
  });
});

describe('parseTarget: characters never valid', () => {
  it.each([
    ['', /target is empty/],
    ['a b', /whitespace \(U\+0020\) at position 2/],
    ['a\tb', /whitespace \(U\+0009\)/],
    ['example.com\n', /whitespace \(U\+000A\)/],
    ['a\u00a0b', /whitespace \(U\+00A0\)/],
    ['a\u0000b', /control character \(U\+0000\)/],
    ['a\u0007b.com', /control character \(U\+0007\)/],
    ['a\u007fb', /control character \(U\+007F\)/],
    ['exa\u200bmple.com', /invisible or invalid character \(U\+200B\)/],
    ['exa\u202emple.com', /invisible or invalid character \(U\+202E\)/],
    ['a\ud800b', /invisible or invalid character \(U\+D800\)/],
    ['a`id`', /backtick at position 2/],
    ['http://example.com/`id`', /backtick/],
    ['-oX', /starts with '-'/],
    ['--script=x', /starts with '-'/],
    ['-', /starts with '-'/],
    ['http://example.com/ a', /whitespace/],
    [`http://example.com/${'a'.repeat(2030)}`, /longer than 2048 characters/],
  ])('%j is refused for every type', (value, reason) => {
    for (const type of [undefined, ...ALL]) {
      const text = reasonOf(value, type);
      expect(text).toMatch(reason);
      expect(text).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}]/u);
    }
  });

  it.each([42, null, undefined, {}, ['127.0.0.1']])('refuses the non-string %j', (value) => {
    expect(reasonOf(value, undefined)).toBe('target must be a string');
  });

  it('accepts exactly 2048 characters', () => {
    const value = `http://example.com/${'a'.repeat(2048 - 19)}`;
    expect(value).toHaveLength(2048);
    expect(parseTarget(value, undefined, ALL).ok).toBe(true);
  });
});

describe('parseTarget: invalid targets of each type', () => {
  it.each([
    ['ip', '127.1', /127\.1 is not a canonical IPv4 address/],
    ['ip', '0x7f.0.0.1', /not a canonical IPv4/],
    ['ip', '2130706433', /not a canonical IPv4/],
    ['ip', '010.0.0.1', /not a canonical IPv4/],
    ['ip', '0177.0.0.1', /not a canonical IPv4/],
    ['ip', '256.0.0.1', /not a canonical IPv4/],
    ['ip', '1.2.3', /not a canonical IPv4/],
    ['ip', '1.2.3.4.5', /not a canonical IPv4/],
    ['ip', '::ffff:0x7f.0.0.1', /not a valid IPv6 address/],
    ['ip', '::ffff:127.1', /not a valid IPv6 address/],
    ['ip', '1::2::3', /not a valid IPv6 address/],
    ['ip', '1:2:3:4:5:6:7:8:9', /not a valid IPv6 address/],
    ['ip', 'fe80::1%eth0', /zone ids \(%eth0\) are not accepted/],
    ['ip', 'example.com', /^targetType ip does not match example\.com$/],
    ['ip', '10.0.0.0/24', /targetType ip does not match/],
    ['network', '10.0.0.0/8', /10\.0\.0\.0\/8 is too wide; the prefix must be at least \/16/],
    ['network', '10.0.0.0/15', /too wide/],
    ['network', '0.0.0.0/0', /too wide/],
    ['network', '::/0', /too wide; the prefix must be at least \/112/],
    ['network', '2001:db8::/64', /too wide/],
    ['network', '10.0.0.1/24', /host bits set; use 10\.0\.0\.0\/24/],
    ['network', '2001:db8::1/112', /host bits set/],
    ['network', '10.0.0.0/33', /invalid prefix length/],
    ['network', '10.0.0.0/016', /invalid prefix length/],
    ['network', '10.0.0.0/', /invalid prefix length/],
    ['network', '127.1/32', /not a canonical/],
    ['network', 'fe80::%eth0/120', /zone ids/],
    ['network', '10.0.0.1', /targetType network does not match 10\.0\.0\.1/],
    ['domain', 'localhost', /a domain has at least one dot/],
    ['domain', 'example..com', /has an empty label/],
    ['domain', '.example.com', /has an empty label/],
    ['domain', 'example.com.', /ends with a dot/],
    ['domain', 'exa_mple.com', /label exa_mple may contain only letters, digits and hyphens/],
    ['domain', 'exa*mple.com', /may contain only letters/],
    ['domain', 'bücher.example', /punycode \(xn--bcher-kva\.example\)/],
    ['domain', 'xn--zz.example', /invalid punycode/],
    ['domain', 'x-.com', /label x- starts or ends with a hyphen/],
    ['domain', 'a.-b.com', /starts or ends with a hyphen/],
    ['domain', `${'a'.repeat(64)}.example`, /is longer than 63 characters/],
    ['domain', `${NAME_253}b`, /is longer than 253 characters/],
    ['domain', 'example.123', /ends in a numeric label/],
    ['domain', 'example.0x1f', /ends in a numeric label/],
    ['domain', '169.254.169.254-254', /read as an address range by nmap \(four labels of digits/],
    ['domain', '10.0-255.0-255.1-254', /read as an address range by nmap/],
    ['domain', '1-2-3.0.0.1-5', /read as an address range by nmap/],
    ['host', '127.0.0.1-2', /read as an address range by nmap/],
    ['url', 'http://169.254.169.254-254/latest/', /read as an address range by nmap/],
    ['image', '10.0.0.1-9:5000/app', /read as an address range by nmap/],
    ['domain', 'example.com:8080', /has a port; ports are accepted only in URLs/],
    ['domain', '127.0.0.1', /targetType domain does not match 127\.0\.0\.1/],
    ['domain', 'http://example.com', /targetType domain does not match/],
    ['domain', 'example.com/path', /is not an http\(s\) URL, IP address, CIDR range or DNS name/],
    ['host', 'exa_mple', /may contain only letters/],
    ['host', '127.1', /not a canonical IPv4/],
    ['host', 'fe80::1%eth0', /zone ids/],
    ['host', 'localhost.', /ends with a dot/],
    ['host', '10.0.0.0/16', /targetType host does not match/],
    ['url', 'ftp://x.com', /ftp URLs are not accepted; only http and https/],
    ['url', 'file:///etc/passwd', /file URLs are not accepted/],
    ['url', 'http://', /has no host/],
    ['url', 'http:///example.com', /has no host/],
    ['url', 'http://:80/', /URL has no host/],
    ['url', 'http://-x.com', /label -x starts or ends with a hyphen/],
    [
      'url',
      'javascript:alert(1)',
      /javascript: targets are not accepted; use an http or https URL/,
    ],
    ['url', 'http:example.com', /not an absolute URL/],
    ['url', 'http:/example.com', /not an absolute URL/],
    ['url', '//example.com/', /is not an http\(s\) URL/],
    ['url', 'http://user:pass@example.com/', /user name or password/],
    ['url', 'http://example.com@evil.com/', /user name or password/],
    ['url', 'http://127.1/', /127\.1 is not a canonical IPv4/],
    ['url', 'http://2130706433/', /not a canonical IPv4/],
    ['url', 'http://0x7f.0.0.1/', /not a canonical IPv4/],
    ['url', 'http://[fe80::1%25eth0]/', /zone ids/],
    ['url', 'http://[::1/', /not a valid \[IPv6\]:port/],
    ['url', 'http://[::1]x/', /not a valid \[IPv6\]:port/],
    ['url', 'http://[example.com]/', /brackets are only for IPv6/],
    ['url', 'http://::1/', /an IPv6 address goes in brackets/],
    ['url', 'http://example.com:0/', /port 0 is not a number from 1 to 65535/],
    ['url', 'http://example.com:65536/', /port 65536/],
    ['url', 'http://example.com:/', /port \(empty\)/],
    ['url', 'http://example.com:80a/', /port 80a/],
    ['url', 'http://exa_mple.com/', /may contain only letters/],
    ['url', 'http://bücher.example/', /punycode/],
    ['url', 'http://exa%6dple.com/', /may contain only letters/],
    ['url', 'http://example.com./', /ends with a dot/],
    ['url', 'http://example.com\\@evil.com/', /backslash/],
    ['url', 'http://example.com/a\\b', /backslash/],
    ['url', 'example.com', /^targetType url does not match example\.com$/],
    ['image', 'Alpine', /image path Alpine must be lower-case/],
    ['image', 'ghcr.io/Owner/app', /must be lower-case/],
    ['image', 'alpine:', /image tag \(empty\) is not valid/],
    ['image', `alpine:${'t'.repeat(129)}`, /image tag/],
    ['image', 'alpine:.x', /image tag \.x/],
    ['image', 'alpine@sha256:abc', /digest sha256:abc is not sha256:<64 lower-case hex digits>/],
    ['image', `alpine@sha256:${'AB12'.repeat(16)}`, /digest/],
    ['image', `alpine@md5:${'ab'.repeat(16)}`, /digest/],
    ['image', 'a//b', /path component \(empty\)/],
    ['image', 'a..b', /path component a\.\.b/],
    ['image', 'library/_a', /path component _a/],
    ['image', 'exa_mple.com:5000/app', /label exa_mple/],
    ['image', '127.1:5000/app', /not a canonical IPv4/],
    ['image', 'registry.example.com:99999/app', /port 99999/],
    ['image', `${'a'.repeat(256)}:1`, /longer than 255/],
    ['image', '@sha256:abc', /digest/],
    ['image', `@${DIGEST}`, /path component \(empty\)/],
    ['image', 'http://registry.example.com/app', /targetType image does not match/],
  ])('%s %j is refused', (type, value, reason) => {
    expect(reasonOf(value, type)).toMatch(reason);
  });
});

describe('parseTarget: inference for each engine', () => {
  it.each([
    ['nmap', 'example.com', 'domain'],
    ['nmap', 'localhost', 'host'],
    ['nmap', '127.0.0.1', 'ip'],
    ['nmap', '::1', 'ip'],
    ['nmap', '10.0.0.0/16', 'network'],
    ['nmap', '2001:db8::/112', 'network'],
    ['nuclei', 'http://example.com/', 'url'],
    ['nuclei', 'example.com', 'domain'],
    ['nuclei', 'localhost', 'host'],
    ['nuclei', '192.0.2.7', 'ip'],
    ['sentinel', 'https://example.com/', 'url'],
    ['sentinel', 'example.com', 'domain'],
    ['sentinel', 'scanme', 'host'],
    ['sentinel', '2001:db8::1', 'ip'],
    ['zap', 'https://example.com/login', 'url'],
    ['nikto', 'http://192.0.2.1:8080/', 'url'],
    ['sqlmap', "http://example.com/item?id=1'", 'url'],
    ['wapiti', 'http://[2001:db8::1]/', 'url'],
    ['harvester', 'example.com', 'domain'],
    ['sublist3r', 'sub.example.co.uk', 'domain'],
    ['trivy', 'https://example.com/', 'url'],
    ['trivy', 'alpine:3.19', 'image'],
    ['trivy', 'alpine', 'image'],
    ['trivy', 'example.com', 'image'],
    ['trivy', 'ghcr.io/owner/app', 'image'],
    ['trivy', `nginx@${DIGEST}`, 'image'],
  ] as const)('%s infers %s as %s', (engine, value, type) => {
    const result = parseTarget(value, undefined, ENGINES[engine].targetTypes, engine);
    expect(result.ok && result.target.type).toBe(type);
  });

  it.each([
    ['nmap', 'http://example.com/', 'scanType nmap does not accept targetType url (it takes'],
    ['nuclei', '10.0.0.0/24', 'scanType nuclei does not accept targetType network'],
    ['sentinel', '10.0.0.0/24', 'scanType sentinel does not accept targetType network'],
    ['zap', 'example.com', 'scanType zap does not accept targetType domain (it takes url)'],
    ['zap', '127.0.0.1', 'scanType zap does not accept targetType ip (it takes url)'],
    ['nikto', 'localhost', 'scanType nikto does not accept targetType host (it takes url)'],
    ['sqlmap', '10.0.0.0/16', 'scanType sqlmap does not accept targetType network'],
    ['wapiti', 'example.com', 'scanType wapiti does not accept targetType domain'],
    [
      'harvester',
      'localhost',
      'scanType harvester does not accept targetType host (it takes domain)',
    ],
    ['harvester', '8.8.8.8', 'scanType harvester does not accept targetType ip'],
    ['sublist3r', 'http://example.com/', 'scanType sublist3r does not accept targetType url'],
  ] as const)('%s refuses %s', (engine, value, reason) => {
    expect(reasonOf(value, undefined, ENGINES[engine].targetTypes, engine)).toContain(reason);
  });

  it.each([
    ['trivy', 'ftp://example.com/', /ftp URLs are not accepted/],
    ['trivy', 'Alpine', /must be lower-case/],
    ['trivy', 'javascript:alert(1)', /image tag alert\(1\)/],
    ['nmap', 'javascript:alert(1)', /javascript: targets are not accepted/],
    ['nmap', 'example.com:22', /has a port/],
    ['nmap', '192.168.1.1:8080', /192\.168\.1\.1:8080 has a port/],
    ['nuclei', '[::1]:8080', /is not an http\(s\) URL, IP address/],
    ['nmap', 'localhost:8080/x', /has a port/],
    ['nmap', 'example.com/x', /is not an http\(s\) URL, IP address, CIDR range or DNS name/],
    ['nmap', '127.1', /not a canonical IPv4/],
    ['nmap', '10.0.0.0/8', /too wide/],
    ['nmap', 'example..com', /empty label/],
    ['zap', 'http://', /has no host/],
  ] as const)('%s refuses %j by its grammar', (engine, value, reason) => {
    expect(reasonOf(value, undefined, ENGINES[engine].targetTypes, engine)).toMatch(reason);
  });

  it.each([
    [['host'], '127.0.0.1', 'host', true],
    [['host'], '::1', 'host', true],
    [['host'], 'example.com', 'host', false],
    [['host', 'url'], 'example.com', 'host', false],
    [['host', 'domain'], '192.0.2.1', 'host', true],
  ] as const)('falls back to host for %j with %s', (types, value, type, hostIsAddress) => {
    const result = parseTarget(value, undefined, types);
    expect(result.ok && result.target).toMatchObject({ type, hostIsAddress });
  });

  it('names no engine when no scanType is given', () => {
    expect(reasonOf('example.com', undefined, ['url'])).toBe(
      'this scanType does not accept targetType domain (it takes url)',
    );
  });
});

describe('parseTarget: given targetType', () => {
  it('keeps the value exactly as submitted and lower-cases the host', () => {
    expect(parseTarget('HTTP://Example.COM/A', 'url', ALL)).toEqual({
      ok: true,
      target: {
        value: 'HTTP://Example.COM/A',
        type: 'url',
        host: 'example.com',
        hostIsAddress: false,
      },
    });
  });

  it.each([
    ['nmap', 'host', '127.0.0.1', true],
    ['nmap', 'host', 'example.com', false],
    ['nmap', 'domain', 'example.com', false],
    ['nuclei', 'url', 'http://example.com/', false],
    ['trivy', 'url', 'https://example.com/', false],
    ['trivy', 'image', 'alpine', false],
  ] as const)('%s takes targetType %s for %s', (engine, type, value, hostIsAddress) => {
    const result = parseTarget(value, type, ENGINES[engine].targetTypes, engine);
    expect(result.ok && result.target).toMatchObject({ type, value, hostIsAddress });
  });

  it.each([
    [
      'zap',
      'domain',
      'example.com',
      'scanType zap does not accept targetType domain (it takes url)',
    ],
    ['nmap', 'image', 'alpine', 'scanType nmap does not accept targetType image'],
    ['nmap', 'url', 'http://example.com/', 'scanType nmap does not accept targetType url'],
    [
      'trivy',
      'host',
      'example.com',
      'scanType trivy does not accept targetType host (it takes url, image)',
    ],
    ['harvester', 'host', 'example.com', 'scanType harvester does not accept targetType host'],
  ] as const)('%s refuses targetType %s', (engine, type, value, reason) => {
    expect(reasonOf(value, type, ENGINES[engine].targetTypes, engine)).toContain(reason);
  });

  it.each([
    ['ip', 'example.com', 'targetType ip does not match example.com'],
    ['url', 'example.com', 'targetType url does not match example.com'],
    ['network', '10.0.0.1', 'targetType network does not match 10.0.0.1'],
    ['ip', '10.0.0.0/24', 'targetType ip does not match 10.0.0.0/24'],
    ['domain', '::1', 'targetType domain does not match ::1'],
  ])('targetType %s refuses %s', (type, value, reason) => {
    expect(reasonOf(value, type)).toBe(reason);
  });

  it.each([
    ['bogus', 'targetType bogus is not one of host, url, domain, ip, network, image'],
    ['IP', 'targetType IP is not one of'],
    ['', 'targetType  is not one of'],
    ['ip\n', 'targetType ipU+000A is not one of'],
  ])('refuses the unknown targetType %j', (type, reason) => {
    expect(reasonOf('127.0.0.1', type)).toContain(reason);
  });
});
