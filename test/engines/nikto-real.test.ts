/**
 * The nikto contract against the real binary (Debian's nikto 2.1.5 from `non-free` here and in
 * CI, installed by `.ci/run`): the version is probed as a worker probes it at start, the engine's
 * command runs through the one process runner (argv array, private workspace as HOME, allowlisted
 * environment, the scanner sandbox when this machine has one) against the deliberately vulnerable
 * test app and a site with several items of one nikto test, and the report nikto writes (XML for
 * 2.1.5, JSON from 2.1.6) is streamed through the engine's parser. Never skipped for a missing
 * nikto: a worker without it could not scan either. Tuning `123` keeps each run to a second or two.
 */

import { describe, expect, it } from 'vitest';
import { probeEngineBinaries } from '../../src/adapters/process/probe-binaries.js';
import { finalizeFindings } from '../../src/domain/findings/fingerprint.js';
import { niktoEngine } from '../../src/engines/nikto/engine.js';
import {
  type EngineRun,
  engineTarget,
  runEngine,
  watchCommandLines,
} from '../support/engine-runs.js';
import { NIKTO_SITE_COOKIES, NIKTO_SITE_HEADERS, useNiktoSite } from '../support/nikto-site.js';
import { useVulnerableApp } from '../support/web-scan.js';

const NIKTO_TIMEOUT_MS = 60_000;

/** The installed nikto, probed as `probeEngines` does for a worker. */
const probe = (await probeEngineBinaries([niktoEngine])).get('nikto');

async function scan(
  url: string,
  options: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
): Promise<EngineRun> {
  return runEngine({
    engine: niktoEngine,
    binary: 'nikto',
    target: engineTarget(niktoEngine, url, 'url'),
    options: { tuning: '123', maxTime: '60s', ...options },
    validate: true,
    toolVersion: probe?.version ?? null,
    config,
    timeoutMs: NIKTO_TIMEOUT_MS,
  });
}

const app = useVulnerableApp();
const site = useNiktoSite();

describe('nikto (real binary) through the process runner', { timeout: 90_000 }, () => {
  it('is installed and its version is read, as a worker reads it at start', () => {
    expect(probe).toMatchObject({ installed: true });
    expect(probe?.version).toMatch(/^\d+\.\d+(\.\d+)?$/);
  });

  it('scans the vulnerable test app: completed, its missing X-Frame-Options at the app URL', async () => {
    const run = await scan(app.url);
    expect(run.output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    const port = Number(new URL(app.url).port);
    const frame = run.output.findings.find((finding) => /X-Frame-Options/i.test(finding.title));
    expect(frame).toMatchObject({
      ruleId: expect.stringMatching(/^\d{6}$/),
      category: 'security-header',
      location: { host: '127.0.0.2', port, protocol: 'tcp', url: app.url },
    });
    expect(run.progress.at(-1)).toBeGreaterThanOrEqual(96);
    expect(run.elapsedMs).toBeLessThan(30_000);
  });

  it('keeps different items of one test apart, with the same fingerprints on a rescan', async () => {
    const fingerprinted = async () => {
      const run = await scan(site.url);
      expect(run.output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
      return finalizeFindings('nikto', run.output.findings);
    };
    const first = await fingerprinted();
    const ruleIds = first.map((finding) => finding.ruleId);
    // One finding per header and per cookie: the subject is part of the rule id.
    for (const header of NIKTO_SITE_HEADERS) {
      expect(ruleIds).toContainEqual(expect.stringMatching(new RegExp(`:${header}$`)));
    }
    for (const cookie of NIKTO_SITE_COOKIES) {
      expect(ruleIds).toContainEqual(expect.stringMatching(new RegExp(`:${cookie}$`)));
    }
    expect(first.length).toBeGreaterThanOrEqual(
      NIKTO_SITE_HEADERS.length + NIKTO_SITE_COOKIES.length + 1,
    );
    // No two items share a fingerprint (finalizeFindings would have merged them).
    expect(new Set(first.map((finding) => finding.fingerprint)).size).toBe(first.length);
    for (const finding of first) {
      expect(finding.location.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\//);
    }

    const rescan = await fingerprinted();
    expect(rescan.map((finding) => finding.fingerprint).sort()).toEqual(
      first.map((finding) => finding.fingerprint).sort(),
    );
  });

  it('sends the cookies and the user agent of config (from nikto.conf) with its requests', async () => {
    site.received.length = 0;
    const userAgent = 'Mozilla/5.0 (Rampart config test)';
    const argv = watchCommandLines(['nikto']);
    const run = await scan(
      site.url,
      { tuning: '1', maxTime: '20s' },
      {
        cookies: { session: 's3ssion=x1', lang: 'en' },
        userAgent,
      },
    );
    const commandLines = argv.stop();
    expect(run.output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    // The system config still applies (its plugins ran and reported the site's items).
    expect(run.output.findings.some((finding) => /X-Frame-Options/i.test(finding.title))).toBe(
      true,
    );
    const withCookie = site.received.filter(
      (request) => request.cookie !== null && /\bsession=s3ssion=x1\b/.test(request.cookie),
    );
    expect(withCookie.length).toBeGreaterThan(100);
    expect(withCookie.every((request) => /\blang=en\b/.test(request.cookie ?? ''))).toBe(true);
    // nikto's first request (its 404 guess) goes before the cookie jar exists; all others carry it.
    expect(withCookie.length).toBeGreaterThanOrEqual(site.received.length - 2);
    expect(new Set(site.received.map((request) => request.userAgent))).toEqual(
      new Set([userAgent]),
    );
    // Neither reached the argv nikto ran with (as the kernel showed it while it ran).
    expect(commandLines.some((line) => line.includes('-host'))).toBe(true);
    for (const line of commandLines) {
      expect(line).not.toContain('s3ssion');
      expect(line).not.toContain('Rampart config test');
    }
  });
});
