import { describe, expect, it } from 'vitest';
import { parseNmapProgress } from './progress.js';

describe('parseNmapProgress', () => {
  // Lines as nmap 7.93 prints them with --stats-every (run against 127.0.0.1).
  it.each([
    ['SYN Stealth Scan Timing: About 45.67% done; ETC: 12:00 (0:00:10 remaining)', 30],
    ['SYN Stealth Scan Timing: About 0.00% done', 5],
    ['Connect Scan Timing: About 98.97% done; ETC: 11:14 (0:00:00 remaining)', 59],
    ['UDP Scan Timing: About 50.00% done; ETC: Unknown (0:00:10 remaining)', 32],
    ['Ping Scan Timing: About 50.00% done; ETC: 11:14 (0:00:01 remaining)', 2],
    ['ARP Ping Scan Timing: About 100.00% done; ETC: 11:14 (0:00:00 remaining)', 5],
    ['Service scan Timing: About 22.22% done; ETC: 11:12 (0:00:21 remaining)', 64],
    ['OS Scan Timing: About 50.00% done', 82],
    ['NSE Timing: About 94.28% done; ETC: 11:14 (0:00:00 remaining)', 98],
    ['NSE Timing: About 100.00% done; ETC: 11:14 (0:00:00 remaining)', 99],
    ['SYN Stealth Scan Timing: About 45.67% done; ETC: 12:00 (0:00:10 remaining)\r', 30],
  ])('reads %j as %i', (line, expected) => {
    expect(parseNmapProgress(line)).toBe(expected);
  });

  it.each([
    ['a Stats line', 'Stats: 0:00:06 elapsed; 0 hosts completed (1 up), 1 undergoing Service Scan'],
    ['the banner', 'Starting Nmap 7.93 ( https://nmap.org ) at 2026-11-23 11:13 UTC'],
    ['a report line', 'Nmap scan report for localhost (127.0.0.1)'],
    ['an empty line', ''],
    ['a phase without a band', 'Traceroute Timing: About 50.00% done'],
    ['a percentage above 100', 'SYN Stealth Scan Timing: About 145.00% done'],
  ])('gives null for %s', (_name, line) => {
    expect(parseNmapProgress(line)).toBeNull();
  });

  it('never goes back between phases run in nmap order', () => {
    const phases = ['Ping Scan', 'SYN Stealth Scan', 'Service scan', 'OS Scan', 'NSE'];
    const values = phases.flatMap((phase) =>
      [0, 25, 50, 75, 100].map((percent) =>
        parseNmapProgress(`${phase} Timing: About ${percent}.00% done`),
      ),
    );
    expect(values.every((value) => value !== null && value >= 0 && value <= 99)).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => (a ?? 0) - (b ?? 0)));
  });
});
