import { describe, expect, it } from 'vitest';
import { createHarvesterProgress, parseHarvesterProgress } from './progress.js';

const ESC = String.fromCharCode(27);
const blue = (text: string) => `${ESC}[94m${text}`;

/**
 * A default run as theHarvester 4.x prints it (print() with ANSI colours; the "Searching" line
 * comes once a source has answered). Current releases print the same texts without colours.
 */
const RUN = [
  '*******************************************************************',
  '* theHarvester 4.6.0                                              *',
  blue('[*] Target: example.com '),
  ` ${ESC}[0m`,
  blue('[*] Searching CRTsh. '),
  blue('[*] Searching Hackertarget. '),
  blue('[*] Searching Otx. '),
  '',
  '[*] No IPs found.',
  '[*] Hosts found: 12',
  '---------------------',
  'www.example.com:93.184.216.34',
  '',
  '[*] Starting DNS brute force.',
  '[*] Starting active queries for DNSLookup.',
  '[*] Performing reverse lookup on 93.184.216.0/24',
  '',
  '[*] Reporting started.',
  '[*] XML File saved.',
  '[*] JSON File saved.',
];

describe('parseHarvesterProgress', () => {
  it.each<[string, number]>([
    [blue('[*] Target: example.com '), 5],
    ['[*] Target: example.com', 5],
    [blue('[*] Searching CRTsh. '), 30],
    ['[*] Searching Crtsh. ', 30],
    [`${blue('[*] Searching Bing. ')}${ESC}[0m`, 30],
    ['[*] Starting DNS brute force.', 60],
    ['\n[*] Starting active queries for DNSLookup.', 75],
    ['[*] Performing reverse lookup on 93.184.216.0/24', 78],
    ['[*] Reporting started.', 90],
    ['[*] XML File saved.', 94],
    ['[*] JSON File saved.', 97],
    ['[*] JSONL File saved.', 98],
  ])('%j → %i', (line, expected) => {
    expect(parseHarvesterProgress(line)).toBe(expected);
  });

  it.each([
    '',
    'www.example.com:93.184.216.34',
    '[*] Hosts found: 12',
    '\tSearching for 93.184.216.34',
    '[*] Searching for 93.184.216.34',
    '[*] Target:',
    '[!] Invalid source.',
    'Searching Crtsh.',
    '* theHarvester 4.6.0 *',
  ])('ignores %j', (line) => {
    expect(parseHarvesterProgress(line)).toBeNull();
  });

  it('a whole run only goes up and never reaches 100', () => {
    const values = RUN.map(parseHarvesterProgress).filter((value) => value !== null);
    expect(values).toEqual([5, 30, 30, 30, 60, 75, 78, 90, 94, 97]);
  });
});

describe('createHarvesterProgress', () => {
  it('moves through the source band as distinct sources answer', () => {
    const next = createHarvesterProgress(4);
    expect(RUN.map(next).filter((value) => value !== null)).toEqual([
      5, 17, 30, 42, 60, 75, 78, 90, 94, 97,
    ]);
  });

  it('counts a source once and never passes the band with more answers than requested', () => {
    const next = createHarvesterProgress(2);
    expect(next('[*] Searching Crtsh.')).toBe(30);
    expect(next(blue('[*] Searching CRTsh. '))).toBe(30);
    expect(next('[*] Searching Otx.')).toBe(55);
    expect(next('[*] Searching Yahoo.')).toBe(55);
  });

  it('treats a nonsensical source count as one', () => {
    expect(createHarvesterProgress(0)('[*] Searching Otx.')).toBe(55);
  });
});
