import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

const ctx = useTestApp();

let tenantId: string;
let token: string;
let admin: string;

beforeAll(async () => {
  tenantId = randomUUID();
  token = await tokenFor(tenantId);
  admin = await tokenFor(randomUUID(), { admin: true, subject: 'root' });
});

const post = (path: string, auth: string, json?: unknown) =>
  ctx.app.request(path, {
    method: 'POST',
    headers: bearer(auth),
    ...(json === undefined ? {} : { json }),
  });

describe('admin routes', () => {
  it('answer 403 ADMIN_REQUIRED to a token without role admin, and 401 without a token', async () => {
    const key = await createKey(ctx.app, token);
    for (const path of [
      `/api/v1/admin/api-keys/${key.id}/suspend`,
      `/api/v1/admin/api-keys/${key.id}/reinstate`,
      `/api/v1/admin/tenants/${tenantId}/suspend`,
      `/api/v1/admin/tenants/${tenantId}/reinstate`,
    ]) {
      const denied = await post(path, token);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({
        success: false,
        error: 'This operation requires an administrator token',
        code: 'ADMIN_REQUIRED',
      });
      const anonymous = await ctx.app.request(path, { method: 'POST' });
      expect(anonymous.body.code).toBe('MISSING_AUTH_TOKEN');
    }
    const quota = await ctx.app.request(`/api/v1/admin/tenants/${tenantId}/quota`, {
      method: 'PUT',
      headers: bearer(token),
      json: { monthlyScanQuota: 5 },
    });
    expect(quota.body.code).toBe('ADMIN_REQUIRED');
  });

  it('suspend a key (401 KEY_SUSPENDED on its next use) and reinstate it', async () => {
    const key = await createKey(ctx.app, token);
    const suspended = await post(`/api/v1/admin/api-keys/${key.id}/suspend`, admin);
    expect(suspended.status).toBe(200);
    expect(suspended.body.data.apiKey.status).toBe('suspended');
    const use = await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } });
    expect(use.status).toBe(401);
    expect(use.body).toEqual({
      success: false,
      error: 'API key is suspended',
      code: 'KEY_SUSPENDED',
    });
    const again = await post(`/api/v1/admin/api-keys/${key.id}/suspend`, admin);
    expect(again.status).toBe(200);
    const reinstated = await post(`/api/v1/admin/api-keys/${key.id}/reinstate`, admin);
    expect(reinstated.body.data.apiKey.status).toBe('active');
    const ok = await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } });
    expect(ok.status).toBe(200);
  });

  it('answer 404 API_KEY_NOT_FOUND for unknown and malformed key ids, 409 for a revoked key', async () => {
    for (const id of [randomUUID(), 'abc']) {
      const response = await post(`/api/v1/admin/api-keys/${id}/suspend`, admin);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('API_KEY_NOT_FOUND');
    }
    const key = await createKey(ctx.app, token);
    await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    const revoked = await post(`/api/v1/admin/api-keys/${key.id}/reinstate`, admin);
    expect(revoked.status).toBe(409);
    expect(revoked.body.code).toBe('API_KEY_NOT_ACTIVE');
  });

  it('suspend a tenant: its keys and its JWTs get 403 TENANT_SUSPENDED until reinstated', async () => {
    const victim = randomUUID();
    const victimToken = await tokenFor(victim);
    const key = await createKey(ctx.app, victimToken);
    const response = await post(`/api/v1/admin/tenants/${victim}/suspend`, admin);
    expect(response.status).toBe(200);
    expect(response.body.data.tenant).toEqual({
      id: victim,
      status: 'suspended',
      monthlyScanQuota: 1000,
      maxRunningScans: null,
    });
    const viaKey = await ctx.app.request('/api/v1/engines', {
      headers: { 'x-api-key': key.rawKey },
    });
    expect(viaKey.status).toBe(403);
    expect(viaKey.body).toEqual({
      success: false,
      error: 'Tenant account is suspended',
      code: 'TENANT_SUSPENDED',
    });
    const viaJwt = await ctx.app.request('/api/v1/api-keys', { headers: bearer(victimToken) });
    expect(viaJwt.body.code).toBe('TENANT_SUSPENDED');
    const back = await post(`/api/v1/admin/tenants/${victim}/reinstate`, admin);
    expect(back.body.data.tenant.status).toBe('active');
    const ok = await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } });
    expect(ok.status).toBe(200);
  });

  it('set a tenant quota (0 allowed) and answer 404 TENANT_NOT_FOUND for an unknown tenant', async () => {
    const quota = await ctx.app.request(`/api/v1/admin/tenants/${tenantId}/quota`, {
      method: 'PUT',
      headers: bearer(admin),
      json: { monthlyScanQuota: 0 },
    });
    expect(quota.status).toBe(200);
    expect(quota.body.data.tenant).toEqual({
      id: tenantId,
      status: 'active',
      monthlyScanQuota: 0,
      maxRunningScans: null,
    });
    const bad = await ctx.app.request(`/api/v1/admin/tenants/${tenantId}/quota`, {
      method: 'PUT',
      headers: bearer(admin),
      json: { monthlyScanQuota: -1 },
    });
    expect(bad.body.code).toBe('INVALID_FIELD_VALUE');
    const missing = await ctx.app.request(`/api/v1/admin/tenants/${tenantId}/quota`, {
      method: 'PUT',
      headers: bearer(admin),
      json: {},
    });
    expect(missing.body.error).toBe('Missing required field: monthlyScanQuota');
    for (const id of [randomUUID(), 'not-a-tenant']) {
      const unknown = await post(`/api/v1/admin/tenants/${id}/suspend`, admin);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({
        success: false,
        error: 'Tenant not found',
        code: 'TENANT_NOT_FOUND',
      });
    }
  });

  it("set a tenant's cap on running scans, back to the default with null; bad values answer 400", async () => {
    const path = `/api/v1/admin/tenants/${tenantId}/max-running-scans`;
    const put = (auth: string, json: unknown) =>
      ctx.app.request(path, { method: 'PUT', headers: bearer(auth), json });
    const set = await put(admin, { maxRunningScans: 7 });
    expect(set.status).toBe(200);
    expect(set.body.data.tenant).toMatchObject({ id: tenantId, maxRunningScans: 7 });
    // The cap shows in every answer with the tenant's record.
    const suspended = await post(`/api/v1/admin/tenants/${tenantId}/suspend`, admin);
    expect(suspended.body.data.tenant.maxRunningScans).toBe(7);
    await post(`/api/v1/admin/tenants/${tenantId}/reinstate`, admin);
    const reset = await put(admin, { maxRunningScans: null });
    expect(reset.status).toBe(200);
    expect(reset.body.data.tenant.maxRunningScans).toBeNull();
    for (const value of [0, -1, 10_001, 2.5]) {
      const bad = await put(admin, { maxRunningScans: value });
      expect(bad.status).toBe(400);
      expect(bad.body.success).toBe(false);
      expect(bad.body.code).toMatch(/^INVALID_FIELD_(VALUE|TYPE)$/);
    }
    const missing = await put(admin, {});
    expect(missing.body).toEqual({
      success: false,
      error: 'Missing required field: maxRunningScans',
      code: 'MISSING_REQUIRED_FIELD',
    });
    expect((await put(token, { maxRunningScans: 3 })).body.code).toBe('ADMIN_REQUIRED');
    const unknown = await ctx.app.request(
      `/api/v1/admin/tenants/${randomUUID()}/max-running-scans`,
      { method: 'PUT', headers: bearer(admin), json: { maxRunningScans: 3 } },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('TENANT_NOT_FOUND');
  });
});
