/**
 * Scan progress from nmap's `--stats-every` lines on stdout. nmap 7.93 prints, per interval,
 *
 *     Stats: 0:00:06 elapsed; 0 hosts completed (1 up), 1 undergoing SYN Stealth Scan
 *     SYN Stealth Scan Timing: About 45.57% done; ETC: 11:14 (0:00:07 remaining)
 *
 * (also `… Timing: About 0.00% done` without ETC, and `ETC: Unknown`). The percentage is that of
 * the current phase only: it starts again at 0 for the service scan and again for NSE (seen by
 * running it against 127.0.0.1). Each phase is therefore mapped onto its own band of the whole
 * run, in the order nmap runs them, so a scan with `-sV` does not go 98% → 22%. The bands are a
 * rough guide to where the time goes, not a measurement.
 */

interface PhaseBand {
  /** The text before ` Timing:`. */
  readonly phase: RegExp;
  readonly from: number;
  readonly to: number;
}

/** First match wins, so the specific names come before the `… Scan` catch-all. */
const PHASE_BANDS: readonly PhaseBand[] = [
  // Host discovery (absent with -Pn): ping sweeps and reverse DNS.
  { phase: /^(ARP |ND )?Ping Scan$|^Parallel DNS resolution/, from: 0, to: 5 },
  // Version detection (-sV); the Timing line writes "Service scan", the Stats line "Service Scan".
  { phase: /^Service scan$/i, from: 60, to: 80 },
  // OS detection (-O) runs after version detection.
  { phase: /^OS Scan$/, from: 80, to: 85 },
  // Scripts (-sC, --script, and the version scripts -sV runs). NSE pre-scan scripts run before
  // everything else but rarely last the 2 s interval; if one does, a caller that keeps the
  // highest value shows 85+ early and then holds it until the scripts phase.
  { phase: /^(NSE|Script Scan)$/, from: 85, to: 99 },
  // The port scans: SYN Stealth, Connect, UDP, ACK, FIN, SCTP INIT, IPProto, Idle … (the names
  // in the nmap 7.93 binary). Traceroute and unknown phases give null.
  { phase: /Scan$/, from: 5, to: 60 },
];

const TIMING_LINE = /^(.+?) Timing: About (\d{1,3}(?:\.\d+)?)% done/;

/**
 * The run's progress (an integer 0..99) from one line of nmap's stdout, or null for any other
 * line (including `Stats:` lines and phases not in the table). Never 100: only completion is.
 * A caller should keep the highest value seen: `-sS -sU` runs two port-scan phases that each
 * count from 0 again within the same band.
 * @example parseNmapProgress('SYN Stealth Scan Timing: About 45.67% done; ETC: 12:00 (0:00:10 remaining)') // 30
 */
export function parseNmapProgress(line: string): number | null {
  const match = TIMING_LINE.exec(line.trim());
  if (match === null) {
    return null;
  }
  const [, phase = '', percentText = ''] = match;
  const band = PHASE_BANDS.find((candidate) => candidate.phase.test(phase));
  const percent = Number(percentText);
  if (band === undefined || !(percent >= 0 && percent <= 100)) {
    return null;
  }
  const value = Math.floor(band.from + ((band.to - band.from) * percent) / 100);
  return Math.min(value, 99);
}
