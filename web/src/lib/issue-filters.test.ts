import { describe, expect, it } from 'vitest';
import {
  isEmptyFilter,
  issueFilterFrom,
  localDateTimeInput,
  pageFrom,
  sharedFilterFrom,
  triageBody,
} from './issue-filters.js';

describe('issueFilterFrom', () => {
  it('reads the filters the API accepts from the query string', () => {
    const params = new URLSearchParams(
      'status=open&triage=accepted_risk&severity=high&engine=nmap&target=%20example.com%20&since=2026-11-01',
    );
    expect(issueFilterFrom(params)).toEqual({
      status: 'open',
      triage: 'accepted_risk',
      severity: 'high',
      engine: 'nmap',
      target: 'example.com',
      since: '2026-11-01T00:00:00.000Z',
    });
  });

  it('drops values the API would refuse instead of sending them', () => {
    const params = new URLSearchParams(
      'status=closed&triage=maybe&severity=HIGH&engine=sentinel&target=%20&since=yesterday',
    );
    const filter = issueFilterFrom(params);
    expect(filter).toEqual({});
    expect(isEmptyFilter(filter)).toBe(true);
  });
});

describe('pageFrom', () => {
  it('is a positive page number, else 1', () => {
    expect(pageFrom(new URLSearchParams('page=3'))).toBe(3);
    for (const bad of ['page=0', 'page=-2', 'page=x', '']) {
      expect(pageFrom(new URLSearchParams(bad))).toBe(1);
    }
  });
});

describe('triageBody', () => {
  it('sends the reason trimmed and the expiry as an instant, for accepted_risk', () => {
    const result = triageBody({
      triage: 'accepted_risk',
      reason: '  patched next sprint ',
      expiresAt: '2030-01-02T03:04',
    });
    expect(result).toEqual({
      ok: true,
      body: {
        triage: 'accepted_risk',
        reason: 'patched next sprint',
        expiresAt: new Date('2030-01-02T03:04').toISOString(),
      },
    });
  });

  it('leaves out a blank reason, and an expiry on any other state', () => {
    expect(
      triageBody({ triage: 'false_positive', reason: ' ', expiresAt: '2030-01-02T03:04' }),
    ).toEqual({ ok: true, body: { triage: 'false_positive' } });
    expect(triageBody({ triage: 'accepted_risk', reason: 'ok', expiresAt: '' })).toEqual({
      ok: true,
      body: { triage: 'accepted_risk', reason: 'ok' },
    });
  });

  it('refuses an expiry that is no date', () => {
    expect(triageBody({ triage: 'accepted_risk', reason: 'ok', expiresAt: 'soon' })).toEqual({
      ok: false,
      problem: 'The expiry is not a date and time.',
    });
  });
});

describe('localDateTimeInput', () => {
  it('gives the input value that triageBody turns back into the same minute', () => {
    const value = localDateTimeInput('2030-01-02T03:04:00.000Z');
    expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(triageBody({ triage: 'accepted_risk', reason: 'r', expiresAt: value })).toMatchObject({
      body: { expiresAt: '2030-01-02T03:04:00.000Z' },
    });
  });

  it('is empty for no instant or a broken one', () => {
    expect(localDateTimeInput(null)).toBe('');
    expect(localDateTimeInput('nope')).toBe('');
  });
});

describe('sharedFilterFrom', () => {
  const from = (query: string) => sharedFilterFrom(new URLSearchParams(query));

  it('takes the filters the issues and findings lists share from the address', () => {
    expect(from('')).toEqual({});
    expect(from('severity=high&engine=nmap&triage=accepted_risk&page=3')).toEqual({
      severity: 'high',
      engine: 'nmap',
      triage: 'accepted_risk',
    });
    expect(from('triage=none')).toEqual({ triage: 'none' });
  });

  it('drops unknown values rather than sending them (the API would refuse them)', () => {
    expect(from('severity=severe&engine=sentinel&triage=maybe')).toEqual({});
    expect(from('engine=NMAP&triage=')).toEqual({});
  });
});
