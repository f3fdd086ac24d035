/**
 * nmap's request for raw sockets: the sandbox gives CAP_NET_RAW (and NMAP_PRIVILEGED=1) only to an
 * argv that sends packets of nmap's own making (SYN, UDP, OS detection), never to a connect scan.
 */
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { nmapEngine } from './engine.js';

const TARGET: ScanTarget = { type: 'ip', value: '10.0.0.5', host: '10.0.0.5', hostIsAddress: true };
const rawSockets = nmapEngine.command.rawSockets;

function argv(options: Record<string, unknown>, privileged: boolean): string[] {
  return nmapEngine.command.buildArgv(options, TARGET, {
    reportPath: '/tmp/w/report.xml',
    workDir: '/tmp/w',
    privileged,
    pin: { address: '10.0.0.5', privateTargetsAllowed: false },
  });
}

describe('nmap rawSockets', () => {
  it('asks for raw sockets for a SYN scan, a UDP scan or OS detection', () => {
    expect(rawSockets?.needed(argv({}, true))).toBe(true);
    expect(rawSockets?.needed(argv({ udpScan: true }, false))).toBe(true);
    expect(rawSockets?.needed(argv({ osDetection: true }, false))).toBe(true);
    expect(rawSockets?.env).toEqual({ NMAP_PRIVILEGED: '1' });
  });

  it('does not for a connect scan, nor for a target that looks like a flag after --', () => {
    expect(rawSockets?.needed(argv({}, false))).toBe(false);
    expect(rawSockets?.needed(['-sT', '-p', '80', '--', '-O'])).toBe(false);
  });
});
