import { describe, expect, it } from 'vitest';
import {
  exportFilename,
  formatDuration,
  isLive,
  locationText,
  scanEngines,
  sortedRiskFactors,
  summaryText,
} from './scan-view.js';

describe('formatDuration', () => {
  it('says a duration in the largest sensible units', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(42_400)).toBe('42 s');
    expect(formatDuration(180_000)).toBe('3 min');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(7_620_000)).toBe('2 h 7 min');
    expect(formatDuration(3_600_000)).toBe('1 h');
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(-1)).toBe('—');
  });
});

describe('isLive', () => {
  it('is true while queued or running', () => {
    expect(['queued', 'running', 'completed', 'failed', 'cancelled'].map(isLive)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('summaryText', () => {
  it('lists the severities found, most severe first', () => {
    expect(summaryText({ critical: 0, high: 2, medium: 0, low: 1, info: 3 })).toBe(
      '2 high, 1 low, 3 info',
    );
    expect(summaryText({ critical: 0, high: 0, medium: 0, low: 0, info: 0 })).toBe('no findings');
  });
});

describe('scanEngines', () => {
  it("offers a scan's own engine, or a sentinel scan's children's, sorted", () => {
    expect(scanEngines({ scanType: 'nmap' })).toEqual(['nmap']);
    expect(
      scanEngines({
        scanType: 'sentinel',
        sentinel: { children: [{ engine: 'zap' }, { engine: 'nmap' }, { engine: 'nuclei' }] },
      }),
    ).toEqual(['nmap', 'nuclei', 'zap']);
    expect(scanEngines({ scanType: 'sentinel', sentinel: { children: [] } })).toEqual([]);
  });

  it('adds the engine the address filters on, once', () => {
    expect(scanEngines({ scanType: 'nmap' }, 'zap')).toEqual(['nmap', 'zap']);
    expect(scanEngines({ scanType: 'nmap' }, 'nmap')).toEqual(['nmap']);
  });
});

describe('sortedRiskFactors', () => {
  it('puts the heaviest factor first, ties by name', () => {
    const sorted = sortedRiskFactors([
      { factor: 'exposure', points: 10, detail: '' },
      { factor: 'severity', points: 40, detail: '' },
      { factor: 'confirmed', points: 10, detail: '' },
    ]);
    expect(sorted.map((f) => f.factor)).toEqual(['severity', 'confirmed', 'exposure']);
    expect(sortedRiskFactors(null)).toEqual([]);
  });
});

describe('exportFilename', () => {
  it('takes the file name the service gives, else makes one', () => {
    expect(exportFilename('attachment; filename="rampart-scan-1.sarif"', '1', 'sarif')).toBe(
      'rampart-scan-1.sarif',
    );
    expect(exportFilename(null, '1', 'defectdojo')).toBe('rampart-scan-1.defectdojo.json');
    expect(exportFilename('attachment; filename="../x"', '1', 'csv')).toBe('rampart-scan-1.csv');
  });
});

describe('locationText', () => {
  it('says the URL, else host, port and protocol, else the host', () => {
    const at = { host: null, port: null, protocol: null, url: null };
    expect(locationText({ ...at, url: 'https://a.test/x', host: 'a.test' })).toBe(
      'https://a.test/x',
    );
    expect(locationText({ ...at, host: '127.0.0.2', port: 22, protocol: 'tcp' })).toBe(
      '127.0.0.2:22/tcp',
    );
    expect(locationText({ ...at, host: 'sub.a.test' })).toBe('sub.a.test');
    expect(locationText(at)).toBe('—');
  });
});
