import { describe, expect, it } from 'vitest';
import { classifyNiktoItem, NIKTO_RULES } from './classify.js';
import { subjectOf } from './finding.js';

const item = (message: string, id = 999999, osvdb: number | null = null, cves: string[] = []) => ({
  id,
  osvdb,
  message,
  cves,
});

describe('classifyNiktoItem', () => {
  it.each([
    // message, id, osvdb, rule, severity, category
    [
      "Default account found for 'Restricted' at /status (ID '', PW 'cisco').",
      700007,
      0,
      'default-credentials',
      'high',
      'default-credentials',
    ],
    [
      'Apache/2.2.22 appears to be outdated (current is at least Apache/2.4.54).',
      600575,
      0,
      'outdated-software',
      'medium',
      'outdated-software',
    ],
    [
      'mod_ssl/2.2.22 - some text nikto writes',
      600050,
      0,
      'outdated-software',
      'medium',
      'outdated-software',
    ],
    [
      "HTTP method ('Allow' Header): 'PUT' method could allow clients to save files on the web server.",
      999978,
      397,
      'dangerous-http-method',
      'medium',
      'http-method',
    ],
    [
      "HTTP method ('Allow' Header): 'DELETE' may allow clients to remove files on the web server.",
      999976,
      5646,
      'dangerous-http-method',
      'medium',
      'http-method',
    ],
    [
      'HTTP TRACE method is active which suggests the host is vulnerable to XST.',
      999972,
      0,
      'dangerous-http-method',
      'medium',
      'http-method',
    ],
    [
      'Potentially interesting backup/cert file found. .',
      740001,
      null,
      'sensitive-file',
      'medium',
      'sensitive-file',
    ],
    [
      'Contains authorization information.',
      2739,
      null,
      'sensitive-file',
      'medium',
      'sensitive-file',
    ],
    [
      'Default Tomcat Manager interface found',
      6525,
      0,
      'admin-interface',
      'medium',
      'admin-interface',
    ],
    [
      'Retrieved access-control-allow-origin header: *.',
      999986,
      null,
      'cors-wildcard',
      'low',
      'security-header',
    ],
    [
      'The anti-clickjacking X-Frame-Options header is not present.',
      999976,
      0,
      'security-header',
      'low',
      'security-header',
    ],
    [
      'Cookie JSESSIONID created without the httponly flag',
      999960,
      0,
      'security-header',
      'low',
      'security-header',
    ],
    [
      'Server leaks inodes via ETags, header found with file /, fields: 0x1 0x2',
      999984,
      0,
      'information-leak',
      'low',
      'information-disclosure',
    ],
    // "vulnerable to the BREACH attack" is the low rule, not the vulnerability one.
    [
      'The Content-Encoding header is set to "deflate" this may mean that the server is vulnerable to the BREACH attack.',
      999966,
      0,
      'information-leak',
      'low',
      'information-disclosure',
    ],
    [
      'myphpnuke is vulnerable to Cross Site Scripting (XSS). CA-2000-02.',
      834,
      3931,
      'known-vulnerability',
      'medium',
      'vulnerability',
    ],
    // An OSVDB id does not raise a pure identification item.
    [
      'favicon.ico file identifies this server as: Apache Tomcat',
      500008,
      39272,
      'identification',
      'info',
      'information-disclosure',
    ],
    [
      "Uncommon header 'x-cache' found, with contents: HIT",
      999100,
      0,
      'identification',
      'info',
      'information-disclosure',
    ],
    [
      'Displays information about page retrievals, including other users.',
      1355,
      3720,
      'osvdb-reference',
      'low',
      'vulnerability',
    ],
    ['This might be interesting.', 1675, null, 'database-check', 'low', 'interesting-content'],
    ['Some message nikto adds in a later release.', 999955, null, 'default', 'info', 'information'],
  ] as const)('%s → %s', (message, id, osvdb, rule, severity, category) => {
    expect(classifyNiktoItem(item(message, id, osvdb))).toMatchObject({ rule, severity, category });
  });

  it('a CVE id in the message or references makes a vulnerability', () => {
    expect(
      classifyNiktoItem(item('Test CGI found.', 999955, null, ['CVE-2014-6271'])),
    ).toMatchObject({
      rule: 'known-vulnerability',
      severity: 'medium',
    });
  });

  it('names every rule once and never rates anything critical', () => {
    const names = NIKTO_RULES.map((rule) => rule.rule);
    expect(new Set(names).size).toBe(names.length);
    expect(NIKTO_RULES.some((rule) => rule.severity === 'critical')).toBe(false);
  });
});

describe('subjectOf', () => {
  it.each([
    ["Uncommon header 'x-cache' found, with contents: HIT", 'x-cache'],
    [
      "/robots.txt: Entry '/ftp/' is returned a non-forbidden or redirect HTTP code (200).",
      '/ftp/',
    ],
    ['Cookie JSESSIONID created without the httponly flag', 'JSESSIONID'],
    ['Potentially interesting backup/cert file found. .', null],
    // The quoted text is what changes between scans: no subject.
    ["/: Server banner changed from 'Apache/2.4.1' to 'Apache/2.4.2'", null],
  ])('%s → %s', (message, subject) => {
    expect(subjectOf(message)).toBe(subject);
  });
});
