import { describe, expect, it } from 'vitest';
import { parseSublist3rProgress } from './progress.js';

describe('parseSublist3rProgress', () => {
  // Lines as sublist3r 1.1 (Debian) prints them with --no-color, copied from real runs here.
  it.each([
    ['[-] Enumerating subdomains now for example.com', 1],
    ['[-] Searching now in Baidu..', 2],
    ['[-] Searching now in SSL Certificates..', 2],
    ['[-] Searching now in PassiveDNS..', 2],
    ['[-] Starting bruteforce module now using subbrute..', 50],
    ['[-] Saving results to file: /tmp/rampart-sublist3r-Ab12Cd/subdomains.txt', 90],
    ['[-] Total Unique Subdomains Found: 4', 95],
    ['[-] Start port scan now for the following ports: 80,443', 96],
    // Without --no-color the same lines come wrapped in ANSI colour codes.
    ['\u001b[94m[-] Enumerating subdomains now for example.com\u001b[0m', 1],
    ['\u001b[92m[-] Searching now in Bing..\u001b[0m', 2],
    ['[-] Total Unique Subdomains Found: 234\r', 95],
  ])('reads %j as %i', (line, expected) => {
    expect(parseSublist3rProgress(line)).toBe(expected);
  });

  it.each([
    ['a banner line', '                # Coded By Ahmed Aboul-Ela - @aboul3la'],
    ['a subdomain', 'api.example.com'],
    [
      'an engine error',
      "HTTPSConnectionPool(host='dnsdumpster.com', port=443): Max retries exceeded with url: /",
    ],
    ['a Python traceback line', 'Process GoogleEnum-4:'],
    ['the refused-domain error', 'Error: Please enter a valid domain'],
    ['an open-port line', 'api.example.com - Found open ports: 80, 443'],
    ['an empty line', ''],
    ['a count that is not a number', '[-] Total Unique Subdomains Found: many'],
  ])('gives null for %s', (_name, line) => {
    expect(parseSublist3rProgress(line)).toBeNull();
  });

  it('never goes back, and stays within 0..99, in the order sublist3r prints', () => {
    const run = [
      '[-] Enumerating subdomains now for example.com',
      '[-] Searching now in Ask..',
      '[-] Starting bruteforce module now using subbrute..',
      '[-] Saving results to file: /tmp/x/subdomains.txt',
      '[-] Total Unique Subdomains Found: 3',
      '[-] Start port scan now for the following ports: 443',
    ].map(parseSublist3rProgress);
    expect(run).toEqual([1, 2, 50, 90, 95, 96]);
    expect(run.every((value) => value !== null && value >= 0 && value <= 99)).toBe(true);
  });
});
