import { describe, expect, it } from 'vitest';
import { WAPITI_DEFAULT_MODULES, WAPITI_MODULES } from './options.js';
import { parseWapitiProgress } from './progress.js';

describe('parseWapitiProgress', () => {
  // Lines as wapiti 3.0.4 prints them with --verbose=1 (run against a local test app).
  it.each([
    ['[+] GET http://127.0.0.1:43687/ (0)', 2],
    ['[+] GET http://127.0.0.1:43687/search?q=apple (1)', 11],
    ['[+] GET http://127.0.0.1:43687/a/b/c (2)', 14],
    ['[+] POST http://127.0.0.1:43687/login (3)', 15],
    ['[+] GET http://127.0.0.1:43687/deep (40)', 19],
    ['[*] Wapiti found 5 URLs and forms during the scan', 20],
    ['[*] Launching module csp', 20],
    ['[*] Launching module http_headers', 26],
    ['[*] Launching module sql', 54],
    ['[*] Launching module xss', 60],
    ['[*] Launching module permanentxss', 88],
    // Modules outside the default set sit between the defaults around them.
    ['[*] Launching module crlf', 20],
    ['[*] Launching module csrf', 30],
    ['[*] Launching module methods', 91],
    ['A report has been generated in the file /tmp/rampart-wapiti-x/report.json', 98],
    // The same lines coloured (--color) or with a carriage return.
    ['\u001b[32m[*] Launching module sql\u001b[0m', 54],
    ['[*] Launching module xss\r', 60],
  ])('reads %j as %i', (line, expected) => {
    expect(parseWapitiProgress(line)).toBe(expected);
  });

  it.each([
    ['the banner', 'Wapiti-3.0.4 (wapiti.sourceforge.io)'],
    ['the moon', '[*] You are lucky! Full moon tonight.'],
    ['saving state', '[*] Saving scan state, please wait...'],
    ['the module list', '\t backup, blindsql, brute_login_form, buster, cookieflags, crlf'],
    ['an evil request', '    GET /hello?name=%3CScRiPt%3E HTTP/1.1'],
    ['a connection error', '[!] Connection error with URL http://127.0.0.1:1/'],
    ['a module of a later version', '[*] Launching module timesql'],
    ['an empty line', ''],
  ])('gives null for %s', (_name, line) => {
    expect(parseWapitiProgress(line)).toBeNull();
  });

  it('moves forward through a full run in wapiti order and stays below 100', () => {
    const lines = [
      '[+] GET http://h/ (0)',
      '[+] GET http://h/a (1)',
      '[+] GET http://h/a/b (2)',
      '[*] Wapiti found 3 URLs and forms during the scan',
      ...WAPITI_MODULES.map((name) => `[*] Launching module ${name}`),
      'A report has been generated in the file /w/report.json',
    ];
    const values = lines.map(parseWapitiProgress);
    expect(values.every((value) => value !== null && value >= 0 && value <= 99)).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => (a ?? 0) - (b ?? 0)));
  });

  it('spreads the default modules over the attack band', () => {
    const values = WAPITI_DEFAULT_MODULES.map((name) =>
      parseWapitiProgress(`[*] Launching module ${name}`),
    );
    expect(values).toEqual([20, 26, 33, 40, 47, 54, 60, 67, 74, 81, 88]);
  });
});
