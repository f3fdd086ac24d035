/**
 * Schedules over real HTTP: writing them (validation, next run time, pause and resume, another
 * tenant's 404, the key's rights), on PGlite and on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

const NOW = new Date('2026-03-07T12:00:00Z');
const clock = { now: () => NOW };
const ctx = useTestApp({}, { clock });

let token = '';
let key = '';
const post = (json: unknown, apiKey = key) =>
  ctx.app.request('/api/v1/schedules', { method: 'POST', headers: { 'x-api-key': apiKey }, json });

beforeAll(async () => {
  token = await tokenFor(randomUUID());
  key = (await createKey(ctx.app, token)).rawKey;
});

describe('POST /api/v1/schedules', () => {
  it('stores a cron schedule in a time zone with its next run time', async () => {
    const response = await post({
      name: 'nightly',
      scan: { scanType: 'nmap', options: { ports: '80,443' } },
      targets: ['203.0.113.9', 'example.com'],
      cron: '0 9 * * *',
      timeZone: 'America/New_York',
      missedRunPolicy: 'run_once',
    });
    expect(response.status, response.text).toBe(201);
    const { schedule } = response.body.data;
    expect(schedule).toMatchObject({
      name: 'nightly',
      targets: ['203.0.113.9', 'example.com'],
      cron: '0 9 * * *',
      timeZone: 'America/New_York',
      intervalSeconds: null,
      missedRunPolicy: 'run_once',
      paused: false,
      pausedReason: null,
      consecutiveFailures: 0,
      // 09:00 in New York on 2026-03-07 (still UTC-5).
      nextRunAt: '2026-03-07T14:00:00.000Z',
      lastRuns: [],
    });
    const read = await ctx.app.request(`/api/v1/schedules/${schedule.id}`, {
      headers: { 'x-api-key': key },
    });
    expect(read.body.data.schedule).toEqual(schedule);
  });

  it('counts an interval from its creation; the policy defaults to skip', async () => {
    const response = await post({
      name: 'hourly',
      scan: { scanType: 'nmap' },
      targets: ['203.0.113.9'],
      intervalSeconds: 3600,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.schedule).toMatchObject({
      intervalSeconds: 3600,
      cron: null,
      missedRunPolicy: 'skip',
      nextRunAt: '2026-03-07T13:00:00.000Z',
    });
  });

  it.each([
    [
      { scan: { scanType: 'nmap' }, targets: ['203.0.113.9'], cron: '* * * * *' },
      400,
      'MISSING_REQUIRED_FIELD',
      'name',
    ],
    [
      { name: 'x', scan: { scanType: 'nmap' }, targets: ['203.0.113.9'] },
      400,
      'MISSING_REQUIRED_FIELD',
      'cron',
    ],
    [
      { name: 'x', targets: ['203.0.113.9'], cron: '* * * * *' },
      400,
      'MISSING_REQUIRED_FIELD',
      'scan',
    ],
    [
      { name: 'x', scan: { scanType: 'nmap' }, targets: [], cron: '* * * * *' },
      400,
      'INVALID_FIELD_VALUE',
      'targets',
    ],
    [
      { name: 'x', scan: { scanType: 'nmap' }, targets: ['203.0.113.9'], cron: '0 0 3 * * *' },
      400,
      'INVALID_FIELD_VALUE',
      'cron',
    ],
    [
      {
        name: 'x',
        scan: { scanType: 'nmap' },
        targets: ['203.0.113.9'],
        cron: '0 3 * * *',
        timeZone: 'Mars/Olympus',
      },
      400,
      'INVALID_FIELD_VALUE',
      'timeZone',
    ],
    [
      {
        name: 'x',
        scan: { scanType: 'nmap' },
        targets: ['203.0.113.9'],
        cron: '0 3 * * *',
        intervalSeconds: 600,
      },
      400,
      'INVALID_FIELD_VALUE',
      'intervalSeconds',
    ],
    [
      { name: 'x', scan: { scanType: 'nmap' }, targets: ['203.0.113.9'], intervalSeconds: 10 },
      400,
      'INVALID_FIELD_VALUE',
      'intervalSeconds',
    ],
    [
      {
        name: 'x',
        scan: { scanType: 'nmap' },
        targets: ['203.0.113.9'],
        cron: '0 3 * * *',
        missedRunPolicy: 'all',
      },
      400,
      'INVALID_FIELD_VALUE',
      'missedRunPolicy',
    ],
    [
      {
        name: 'x',
        scan: { scanType: 'nmap', target: '203.0.113.9' },
        targets: ['203.0.113.9'],
        cron: '0 3 * * *',
      },
      400,
      'INVALID_FIELD_VALUE',
      'scan.target',
    ],
    [
      { name: 'x', scan: { scanType: 'nmap' }, targets: ['not a host'], cron: '0 3 * * *' },
      400,
      'INVALID_TARGET',
      '',
    ],
    [
      { name: 'x', scan: { scanType: 'nope' }, targets: ['203.0.113.9'], cron: '0 3 * * *' },
      400,
      'INVALID_SCAN_TYPE',
      '',
    ],
    [
      { name: 'x', templateId: randomUUID(), targets: ['203.0.113.9'], cron: '0 3 * * *' },
      404,
      'TEMPLATE_NOT_FOUND',
      '',
    ],
    [
      { name: 'x', scan: { scanType: 'nmap' }, targets: ['10.0.0.1'], cron: '0 3 * * *' },
      403,
      'TARGET_NOT_ALLOWED',
      '',
    ],
  ])('refuses %j with %i %s', async (body, status, code, field) => {
    const response = await post(body);
    expect(response.status, response.text).toBe(status);
    expect(response.body.code).toBe(code);
    if (field !== '') {
      expect(response.body.error).toContain(field);
    }
  });

  it('refuses credentials in its own scan body: they belong in a template', async () => {
    const response = await post({
      name: 'x',
      scan: { scanType: 'sqlmap', config: { auth: { type: 'bearer', token: 't0ken' } } },
      targets: ['https://example.com/'],
      cron: '0 3 * * *',
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toContain('template');
  });

  it('never widens what the key may do', async () => {
    const narrow = (await createKey(ctx.app, token, { allowedScanTypes: ['nikto'] })).rawKey;
    const response = await post(
      { name: 'x', scan: { scanType: 'nmap' }, targets: ['203.0.113.9'], cron: '0 3 * * *' },
      narrow,
    );
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('SCAN_TYPE_NOT_ALLOWED');
  });

  it('takes a template instead of a scan body', async () => {
    const template = await ctx.app.request('/api/v1/templates', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { name: 'tpl', scanType: 'nmap', options: { ports: '22' } },
    });
    const response = await post({
      name: 'from template',
      templateId: template.body.data.template.id,
      targets: ['203.0.113.9'],
      cron: '*/15 * * * *',
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.schedule.templateId).toBe(template.body.data.template.id);
    expect(response.body.data.schedule.nextRunAt).toBe('2026-03-07T12:15:00.000Z');
  });
});

describe('PATCH, list and DELETE', () => {
  it('pauses, resumes, changes the recurrence; another tenant gets 404', async () => {
    const created = (
      await post({
        name: 'p',
        scan: { scanType: 'nmap' },
        targets: ['203.0.113.9'],
        cron: '0 3 * * *',
      })
    ).body.data.schedule;
    const patch = (json: unknown, apiKey = key) =>
      ctx.app.request(`/api/v1/schedules/${created.id}`, {
        method: 'PATCH',
        headers: { 'x-api-key': apiKey },
        json,
      });
    expect((await patch({ paused: true })).body.data.schedule.paused).toBe(true);
    const changed = (await patch({ intervalSeconds: 600 })).body.data.schedule;
    expect(changed).toMatchObject({
      cron: null,
      timeZone: null,
      intervalSeconds: 600,
      paused: true,
    });
    const resumed = (await patch({ paused: false })).body.data.schedule;
    expect(resumed).toMatchObject({ paused: false, nextRunAt: '2026-03-07T12:10:00.000Z' });
    expect((await patch({ cron: 'bad' })).status).toBe(400);

    const otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await ctx.app.request(`/api/v1/schedules/${created.id}`, {
        method,
        headers: { 'x-api-key': otherKey },
      });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('SCHEDULE_NOT_FOUND');
    }
    expect((await patch({ paused: true }, otherKey)).status).toBe(404);

    const list = await ctx.app.request('/api/v1/schedules?limit=2', {
      headers: bearer(token),
    });
    expect(list.status).toBe(200);
    expect(list.body.data.schedules).toHaveLength(2);
    expect(list.body.data.pagination.total).toBeGreaterThanOrEqual(4);

    const deleted = await ctx.app.request(`/api/v1/schedules/${created.id}`, {
      method: 'DELETE',
      headers: { 'x-api-key': key },
    });
    expect(deleted.body.data).toEqual({ id: created.id, deleted: true });
    expect(
      (await ctx.app.request(`/api/v1/schedules/${created.id}`, { headers: { 'x-api-key': key } }))
        .status,
    ).toBe(404);
  });
});
