// The console handler over HTTP: sign-in and cookie, token and CSRF checks, spill downloads, stop and approvals.
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CSRF_HEADER, createConsoleHandler } from '../../../src/faces/console/index.js';
import { csrfValue } from '../../../src/faces/console/auth.js';
import { createRuntime } from '../../../src/index.js';
import { fetchRaw, mount, TOKEN, type Mounted } from './server.js';

let mounted: Mounted | undefined;
afterEach(async () => {
  await mounted?.close();
  mounted = undefined;
});

const bearer = { authorization: `Bearer ${TOKEN}` };
const writer = { ...bearer, [CSRF_HEADER]: csrfValue(TOKEN), 'content-type': 'application/json' };

describe('console handler', () => {
  it('signs in once with /?token= and then serves the page by cookie, never without the token', async () => {
    mounted = await mount();
    const anonymous = await fetchRaw(`${mounted.base}/`);
    expect(anonymous.status).toBe(401);
    expect((await fetchRaw(`${mounted.base}/api/stream`)).status).toBe(401);
    expect((await fetchRaw(`${mounted.base}/?token=wrong-token-000000000000`)).status).toBe(401);

    const signIn = await fetchRaw(`${mounted.base}/?token=${TOKEN}`);
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe('/');
    const cookie = signIn.headers['set-cookie']![0]!;
    expect(cookie).toContain(`shellring_token=${TOKEN}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');

    const page = await fetchRaw(`${mounted.base}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.body).toContain(`content="${csrfValue(TOKEN)}"`);
    expect(page.headers['content-security-policy']).toContain("script-src 'self' 'sha256-");
    for (const asset of ['console/app.js', 'console/vendor/preact.js', 'console/vendor/htm-preact.js', 'console/vendor/ansi_up.js']) {
      const reply = await fetchRaw(`${mounted.base}/${asset}`, { headers: bearer });
      expect(reply.status, asset).toBe(200);
      expect(reply.headers['content-type']).toContain('javascript');
    }
  });

  it('refuses a change without the CSRF header, or from another site', async () => {
    mounted = await mount();
    const session = mounted.runtime.session({ id: 'csrf' });
    const started = await session.callTool('bash', { command: 'sleep 30', description: 'Sleep for half a minute', run_in_background: true });
    const jobId = /bash-\d+/.exec(started.content[0]!.text)![0];
    const url = `${mounted.base}/api/jobs/${jobId}/stop`;
    expect((await fetchRaw(url, { method: 'POST', headers: bearer, body: '{}' })).status).toBe(403);
    expect((await fetchRaw(url, { method: 'POST', headers: { ...writer, [CSRF_HEADER]: 'guess' }, body: '{}' })).status).toBe(403);
    expect((await fetchRaw(url, { method: 'POST', headers: { ...writer, origin: 'http://evil.example' }, body: '{}' })).status).toBe(403);
    expect(mounted.runtime.jobs!.list()[0]!.state).toBe('running');
    const stop = await fetchRaw(url, { method: 'POST', headers: writer, body: JSON.stringify({ reason: 'not needed now' }) });
    expect(stop.status).toBe(200);
    const output = await session.callTool('job_output', { job_id: jobId, wait: true });
    expect(output.content[0]!.text).toContain('not needed now');
  });

  it('downloads a spill file with the token, and refuses any path outside the spill directories', async () => {
    mounted = await mount();
    const session = mounted.runtime.session({ id: 'spill' });
    const result = await session.callTool('bash', { command: 'seq 1 100000', description: 'Print many numbers to spill' });
    const spill = (result.structuredContent!.stdout as { spillPath: string }).spillPath;
    expect(spill).toBeTruthy();
    const url = (path: string) => `${mounted!.base}/api/spill?path=${encodeURIComponent(path)}`;
    expect((await fetchRaw(url(spill))).status).toBe(401);
    const download = await fetchRaw(url(spill), { headers: bearer });
    expect(download.status).toBe(200);
    expect(download.headers['content-disposition']).toMatch(/^attachment/);
    expect(download.body.split('\n').length).toBe(100001);

    const outside = mkdtempSync(join(tmpdir(), 'shellring-outside-'));
    writeFileSync(join(outside, 'secret'), 'secret');
    const link = join(spill, '..', 'link-out');
    symlinkSync(join(outside, 'secret'), link);
    for (const path of ['/etc/passwd', join(outside, 'secret'), `${spill}/../../../etc/passwd`, link]) {
      const refused = await fetchRaw(url(path), { headers: bearer });
      expect(refused.status, path).toBeGreaterThanOrEqual(403);
      expect(refused.body).not.toContain('secret');
      expect(refused.body).not.toContain('root:');
    }
  });

  it('answers an approval once; a second decision finds nothing pending', async () => {
    mounted = await mount();
    const asked = mounted.approvals.request({ sessionId: 's', toolName: 'bash', reason: 'escalate sandbox to workspace-write: test' });
    const [pending] = mounted.approvals.pending();
    const url = `${mounted.base}/api/approvals/${pending!.id}`;
    expect((await fetchRaw(url, { method: 'POST', headers: writer, body: JSON.stringify({ decision: 'maybe' }) })).status).toBe(400);
    expect((await fetchRaw(url, { method: 'POST', headers: writer, body: JSON.stringify({ decision: 'reject' }) })).status).toBe(200);
    expect(await asked).toBe('rejected');
    expect((await fetchRaw(url, { method: 'POST', headers: writer, body: JSON.stringify({ decision: 'allow-once' }) })).status).toBe(409);
  });

  it('drops a request whose call is cancelled before anyone decides', async () => {
    mounted = await mount();
    const controller = new AbortController();
    const asked = mounted.approvals.request({ sessionId: 's', toolName: 'bash', reason: 'r', signal: controller.signal });
    expect(mounted.approvals.pending()).toHaveLength(1);
    controller.abort();
    expect(await asked).toBe('cancelled');
    expect(mounted.approvals.pending()).toEqual([]);
  });

  it('refuses a token that cannot travel in a cookie', async () => {
    const runtime = await createRuntime({ jobs: false });
    try {
      expect(() => createConsoleHandler(runtime, { token: '' })).toThrow(/is empty/);
      expect(() => createConsoleHandler(runtime, { token: 'short' })).toThrow(/too short/);
      expect(() => createConsoleHandler(runtime, { token: 'has space in it 12345' })).toThrow(/printable ASCII/);
      expect(() => createConsoleHandler(runtime, { token: 'semi;colon-0123456789' })).toThrow(/printable ASCII/);
    } finally {
      await runtime.close();
    }
  });
});
