import { describe, expect, it } from 'vitest';
import {
  describeInterval,
  describeRecurrence,
  describeSource,
  draftFromSchedule,
  EMPTY_DRAFT,
  linesOf,
  type Schedule,
  scheduleBody,
} from './schedule-form.js';

describe('scheduleBody', () => {
  it('sends the targets and the cron, clearing the other source and recurrence', () => {
    expect(
      scheduleBody({
        ...EMPTY_DRAFT,
        name: ' nightly ',
        targets: 'a.example\n\n b.example \na.example',
        cron: ' 30 2 * * 1-5 ',
        timeZone: 'Europe/Paris',
      }),
    ).toEqual({
      name: 'nightly',
      missedRunPolicy: 'skip',
      templateId: null,
      scan: { scanType: 'nmap' },
      targets: ['a.example', 'b.example'],
      assetIds: null,
      assetTag: null,
      cron: '30 2 * * 1-5',
      timeZone: 'Europe/Paris',
      intervalSeconds: null,
    });
  });

  it('sends assets, a template without an engine, and an interval in seconds', () => {
    const body = scheduleBody({
      ...EMPTY_DRAFT,
      name: 'hourly',
      source: 'assets',
      assetIds: ['a1', 'a2'],
      templateId: 'tpl',
      scanType: '',
      recurrence: 'interval',
      intervalMinutes: '90',
      missedRunPolicy: 'run_once',
    });
    expect(body).toMatchObject({
      templateId: 'tpl',
      scan: null,
      targets: null,
      assetIds: ['a1', 'a2'],
      assetTag: null,
      cron: null,
      timeZone: null,
      intervalSeconds: 5400,
      missedRunPolicy: 'run_once',
    });
  });

  it('sends a tag, and no interval for one that is not a number (the API says why)', () => {
    const body = scheduleBody({
      ...EMPTY_DRAFT,
      source: 'tag',
      assetTag: ' prod ',
      recurrence: 'interval',
      intervalMinutes: 'often',
    });
    expect(body).toMatchObject({ assetTag: 'prod', targets: null, intervalSeconds: null });
  });
});

const SCHEDULE: Schedule = {
  id: 's1',
  name: 'weekly',
  description: null,
  scan: { scanType: 'zap' },
  templateId: null,
  targets: [],
  assetIds: null,
  assetTag: 'prod',
  cron: null,
  timeZone: null,
  intervalSeconds: 7200,
  missedRunPolicy: 'run_once',
  paused: false,
  pausedReason: null,
  consecutiveFailures: 0,
  nextRunAt: null,
  lastRuns: [],
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
};

describe('draftFromSchedule', () => {
  it('gives back the draft that makes the same schedule', () => {
    const draft = draftFromSchedule(SCHEDULE);
    expect(draft).toMatchObject({
      source: 'tag',
      assetTag: 'prod',
      recurrence: 'interval',
      intervalMinutes: '120',
      scanType: 'zap',
    });
    expect(scheduleBody(draft)).toMatchObject({
      assetTag: 'prod',
      intervalSeconds: 7200,
      scan: { scanType: 'zap' },
      missedRunPolicy: 'run_once',
    });
  });
});

describe('describing a schedule', () => {
  it('reads the interval in its largest whole unit', () => {
    expect(describeInterval(86_400)).toBe('every 1 day');
    expect(describeInterval(7200)).toBe('every 2 hours');
    expect(describeInterval(900)).toBe('every 15 minutes');
    expect(describeInterval(90)).toBe('every 90 seconds');
  });

  it('reads the cron with its zone, or the interval', () => {
    expect(describeRecurrence({ cron: '0 3 * * *', timeZone: null, intervalSeconds: null })).toBe(
      'cron 0 3 * * * (UTC)',
    );
    expect(describeRecurrence(SCHEDULE)).toBe('every 2 hours');
  });

  it('names what it scans', () => {
    expect(describeSource(SCHEDULE)).toBe('assets tagged prod');
    expect(describeSource({ targets: ['a', 'b'], assetIds: null, assetTag: null })).toBe('a, b');
    expect(describeSource({ targets: [], assetIds: ['x'], assetTag: null })).toBe('1 asset');
  });

  it('splits lines without blanks or repeats', () => {
    expect(linesOf(' a \n\nb\na\n')).toEqual(['a', 'b']);
  });
});
