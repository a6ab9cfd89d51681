// The console handler over HTTP: sign-in form and cookie, token and CSRF checks, spill downloads, stop, mode and approvals.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CSRF_HEADER, createConsoleHandler } from '../../../src/faces/console/index.js';
import { createRuntime } from '../../../src/index.js';
import { fetchRaw, mount, signIn, TOKEN, type Mounted } from './server.js';

let mounted: Mounted | undefined;
afterEach(async () => {
  await mounted?.close();
  mounted = undefined;
});

const bearer = { authorization: `Bearer ${TOKEN}` };
const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('console handler', () => {
  it('shows a sign-in form without a cookie, signs in by a form POST, then serves the page by a cookie that is not the token', async () => {
    mounted = await mount();
    const anonymous = await fetchRaw(`${mounted.base}/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(anonymous.body).toContain('<form method="post" action="/" autocomplete="off">');
    expect(anonymous.body).toContain('<input type="password" name="token" id="token" required autofocus>');
    expect(anonymous.body).toContain('<p id="message" class="message">Enter the token of this shellring server.</p>');
    expect(anonymous.body).not.toContain('jsonrpc');
    expect((await fetchRaw(`${mounted.base}/api/stream`)).status).toBe(401);
    const wrong = await fetchRaw(`${mounted.base}/`, { method: 'POST', headers: form, body: 'token=wrong-token-000000000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('<p id="message" class="message wrong">That token is not valid.</p>');
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const posted = await fetchRaw(`${mounted.base}/`, { method: 'POST', headers: form, body: new URLSearchParams({ token: TOKEN }).toString() });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe('/');
    const cookie = posted.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/^shellring_signin=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);

    const page = await fetchRaw(`${mounted.base}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    const csrf = /name="shellring-csrf" content="([\w-]{43})"/.exec(page.body)![1]!;
    // Random per sign-in: a second sign-in with the same token gets other values.
    const again = await signIn(mounted.base);
    expect(again.cookie).not.toBe(cookie.split(';')[0]);
    expect(again.csrf).not.toBe(csrf);
    expect(page.headers['content-security-policy']).toContain("script-src 'self' 'sha256-");
    for (const asset of ['console/app.js', 'console/vendor/preact.js', 'console/vendor/htm-preact.js', 'console/vendor/ansi_up.js']) {
      const reply = await fetchRaw(`${mounted.base}/${asset}`, { headers: bearer });
      expect(reply.status, asset).toBe(200);
      expect(reply.headers['content-type']).toContain('javascript');
    }
    // The token itself as a cookie opens nothing.
    expect((await fetchRaw(`${mounted.base}/api/stream`, { headers: { cookie: `shellring_signin=${TOKEN}` } })).status).toBe(401);
  });

  it('refuses the token in the address unless link sign-in is on, and marks the cookie Secure when asked', async () => {
    mounted = await mount();
    const link = await fetchRaw(`${mounted.base}/?token=${TOKEN}`);
    expect(link.status).toBe(400);
    expect(link.headers['set-cookie']).toBeUndefined();
    expect(link.body).toContain(
      '<p id="message" class="message wrong">Sign in with this form: this server takes no token in the address, where proxies and browser history keep it.</p>',
    );
    await mounted.close();
    mounted = await mount({}, { linkSignIn: true, secureCookie: true });
    expect((await fetchRaw(`${mounted.base}/?token=wrong-token-000000000000`)).status).toBe(401);
    const linked = await fetchRaw(`${mounted.base}/?token=${TOKEN}`);
    expect(linked.status).toBe(303);
    expect(linked.headers['set-cookie']![0]).toMatch(/^shellring_signin=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it('signs in with a token made by `openssl rand -base64 32` (+, / and =)', async () => {
    const token = 'a+b/c=d+e/f=g+h/i=j+k/l=m+n/o=p+q/r=s+t/u0=';
    mounted = await mount({}, { token });
    const browser = await signIn(mounted.base, token);
    expect(browser.csrf).toMatch(/^[\w-]{43}$/);
    const random = spawnSync('openssl', ['rand', '-base64', '32'], { encoding: 'utf8' }).stdout.trim();
    await mounted.close();
    mounted = await mount({}, { token: random });
    expect((await signIn(mounted.base, random)).csrf).toMatch(/^[\w-]{43}$/);
  });

  it('refuses a browser change without its sign-in\'s CSRF header, or from another site; a bearer needs none', async () => {
    mounted = await mount();
    const session = mounted.runtime.session({ id: 'csrf' });
    const start = async () => {
      const started = await session.callTool('bash', { command: 'sleep 30', description: 'Sleep for half a minute', run_in_background: true });
      return /bash-\d+/.exec(started.content[0]!.text)![0];
    };
    const jobId = await start();
    const url = `${mounted.base}/api/jobs/${jobId}/stop`;
    const browser = await signIn(mounted.base);
    const other = await signIn(mounted.base);
    const cookie = { cookie: browser.cookie, ...json };
    expect((await fetchRaw(url, { method: 'POST', headers: cookie, body: '{}' })).status).toBe(403);
    expect((await fetchRaw(url, { method: 'POST', headers: { ...cookie, [CSRF_HEADER]: 'guess' }, body: '{}' })).status).toBe(403);
    // Another sign-in's value is not this one's.
    expect((await fetchRaw(url, { method: 'POST', headers: { ...cookie, [CSRF_HEADER]: other.csrf }, body: '{}' })).status).toBe(403);
    const writer = { ...cookie, [CSRF_HEADER]: browser.csrf };
    expect((await fetchRaw(url, { method: 'POST', headers: { ...writer, origin: 'http://evil.example' }, body: '{}' })).status).toBe(403);
    expect(mounted.runtime.jobs!.list()[0]!.state).toBe('running');
    const stop = await fetchRaw(url, { method: 'POST', headers: writer, body: JSON.stringify({ reason: 'not needed now' }) });
    expect(stop.status).toBe(200);
    const output = await session.callTool('job_output', { job_id: jobId, wait: true });
    expect(output.content[0]!.text).toContain('not needed now');
    // A program with the token stops a job with its header alone.
    const second = await start();
    const byBearer = await fetchRaw(`${mounted.base}/api/jobs/${second}/stop`, { method: 'POST', headers: { ...bearer, ...json }, body: '{}' });
    expect(byBearer.status).toBe(200);
  });

  it('changes a session\'s mode only for a signed-in browser, never for the bearer token', async () => {
    mounted = await mount({ sandbox: { mode: 'read-only' } });
    mounted.runtime.session({ id: 'confined' });
    const url = `${mounted.base}/api/sessions/confined/mode`;
    const body = JSON.stringify({ mode: 'danger-full-access' });
    const refused = await fetchRaw(url, { method: 'POST', headers: { ...bearer, ...json }, body });
    expect(refused.status).toBe(403);
    expect(refused.body).toBe(
      'Forbidden: only a person signed in to the console (a browser with its sign-in cookie) can do this; the bearer token cannot\n',
    );
    expect(mounted.runtime.sandbox!.modeFor('confined')).toBe('read-only');
    const browser = await signIn(mounted.base);
    const changed = await fetchRaw(url, { method: 'POST', headers: { cookie: browser.cookie, [CSRF_HEADER]: browser.csrf, ...json }, body });
    expect(changed.status).toBe(200);
    expect(mounted.runtime.sandbox!.modeFor('confined')).toBe('danger-full-access');
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
    expect((await fetchRaw(url, { method: 'POST', headers: { ...bearer, ...json }, body: JSON.stringify({ decision: 'allow-once' }) })).status).toBe(403);
    const browser = await signIn(mounted.base);
    const writer = { cookie: browser.cookie, [CSRF_HEADER]: browser.csrf, ...json };
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
