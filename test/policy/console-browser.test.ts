// Command approvals in the web console, in a real browser (Debian's chromium) against `shellring serve --policy`:
// the card shows the sub-command and the rule; allow once, allow always for the session, reject, and no "always"
// for a broad prefix.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.js';
import { call, cli, httpTransport, newClient, textOf, workdir, type TestClient } from '../faces/helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let serve: ChildProcess;
let url: string;
let token: string;
let consoleUrl: string;
let browser: Browser;
let context: BrowserContext;
let work: string;
const clients: TestClient[] = [];

async function connect(name: string): Promise<{ tc: TestClient; sessionId: string }> {
  const tc = newClient(name);
  const transport = httpTransport(url, token);
  await tc.client.connect(transport);
  clients.push(tc);
  return { tc, sessionId: transport.sessionId! };
}

async function openPage(sessionId: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${consoleUrl}/`);
  await page.click(`[data-session="${sessionId}"]`);
  return page;
}

const run = (command: string) => ({ command, description: 'Run a command the policy asks about' });

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH`);
  work = workdir('console-policy');
  const policy = join(work, '..', `policy-${process.pid}.json`);
  writeFileSync(
    policy,
    JSON.stringify({
      rules: [
        { decision: 'ask', command: ['mkdir'], message: 'a person approves new directories' },
        { decision: 'ask', command: ['node'], message: 'a person approves scripts' },
      ],
    }),
  );
  serve = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work, '--policy', policy], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  serve.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const signIn = await until(() => /^shellring: web console at (http:\/\/\S+)$/m.exec(stderr)?.[1], 20_000, 'the console address');
  url = /listening on (\S+)/.exec(stderr)![1]!;
  token = /generated for this run\): (\S+)/.exec(stderr)![1]!;
  consoleUrl = new URL(signIn).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(signIn);
  await page.close();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((tc) => tc.client.close().catch(() => {})));
  await browser?.close();
  serve?.kill('SIGINT');
});

describe('command approvals in the console', () => {
  it('allows once, then rejects, showing the sub-command, the rule, the command and the cwd', async () => {
    const { tc, sessionId } = await connect('policy-once');
    const page = await openPage(sessionId);
    const approval = page.locator('[data-approval][data-kind="command"]');
    const first = call(tc.client, 'bash', run('mkdir once && echo made'));
    await approval.waitFor();
    expect(await approval.locator('.subcommand').textContent()).toBe('mkdir');
    expect(await approval.locator('.rule').textContent()).toBe('mkdir');
    const shown = (await approval.textContent())!;
    for (const part of ['mkdir once && echo made', work, 'a person approves new directories']) expect(shown).toContain(part);
    await approval.locator('button.allow').click();
    expect(textOf(await first)).toBe('made\n');
    await approval.waitFor({ state: 'detached' });

    const second = call(tc.client, 'bash', run('mkdir rejected'));
    await approval.waitFor();
    await approval.locator('button.reject').click();
    expect(textOf(await second)).toBe('[policy: rejected by the user — mkdir: a person approves new directories]');
    expect(existsSync(join(work, 'once'))).toBe(true);
    expect(existsSync(join(work, 'rejected'))).toBe(false);
    await page.close();
  });

  it('allows a prefix always for the session, and offers only once for a broad one', async () => {
    const { tc, sessionId } = await connect('policy-always');
    const page = await openPage(sessionId);
    const approval = page.locator('[data-approval][data-kind="command"]');
    const first = call(tc.client, 'bash', run('mkdir always-1 && echo one'));
    await approval.waitFor();
    expect(await approval.locator('button.always').textContent()).toBe('Allow "mkdir" always for this session');
    await approval.locator('button.always').click();
    expect(textOf(await first)).toBe('one\n');
    // No prompt this time: the call completes without anyone clicking.
    expect(textOf(await call(tc.client, 'bash', run('mkdir always-2 && echo two')))).toBe('two\n');

    const script = call(tc.client, 'bash', run('node -e "console.log(3)"'));
    // The card of this call: the answered one may still be on the page until the next refresh.
    const broad = approval.filter({ hasText: 'console.log(3)' });
    await broad.waitFor();
    expect(await broad.locator('button.always').count()).toBe(0);
    await broad.locator('button.allow').click();
    expect(textOf(await script)).toBe('3\n');
    await page.close();
  });
});
