// Signing in to the console in a real browser (Debian's chromium) against a real `shellring serve` with a configured
// token made by `openssl rand -base64 32`: the sign-in page, a wrong token, the form POST, and no token in any address.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../helpers/until.js';
import { cli, workdir } from '../helpers.js';
import { shot } from './live.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let work: string;
let serve: ChildProcess;
let origin: string;
let token: string;
let browser: Browser;

/** What a person sees of a page's look: the body's colours and type, and the top bar's. */
function look(page: Page) {
  return page.evaluate(() => {
    const style = (selector: string) => {
      const css = getComputedStyle(document.querySelector(selector)!);
      return { background: css.backgroundColor, color: css.color, font: css.fontFamily, size: css.fontSize, border: css.borderBottom };
    };
    return { body: style('body'), top: style('header.top'), brand: style('.brand') };
  });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH`);
  work = workdir('console-sign-in');
  const ws = join(work, 'ws');
  const secret = join(work, 'secret');
  mkdirSync(ws);
  mkdirSync(secret, { mode: 0o700 });
  // The README's way to make a token: base64 with +, / and = in it (or kept until one has them).
  do token = spawnSync('openssl', ['rand', '-base64', '32'], { encoding: 'utf8' }).stdout.trim();
  while (!/[+/]/.test(token));
  writeFileSync(join(secret, 'token'), `${token}\n`, { mode: 0o600 });
  serve = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', ws, '--token-file', join(secret, 'token'), '--sandbox', 'read-only'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  serve.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const page = await until(() => /^shellring: web console at (http:\/\/\S+) \(sign in with the token in its form\)$/m.exec(stderr)?.[1], 20_000, 'the console address');
  origin = new URL(page).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  serve?.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
});

describe('console sign-in in chromium', () => {
  it('shows a sign-in form, refuses a wrong token, signs in by the form, and never puts the token in an address', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const addresses: string[] = [];
    page.on('framenavigated', (frame) => addresses.push(frame.url()));
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));

    const first = await page.goto(`${origin}/`);
    expect(first!.status()).toBe(401);
    expect(await page.title()).toBe('shellring console: sign in');
    expect(await page.textContent('#message')).toBe('Enter the token of this shellring server.');
    expect(await page.content()).not.toContain('jsonrpc');

    // The sign-in page wears the console's look (its inline stylesheet is allowed by hash, or none of it applies).
    const signInLook = await look(page);
    expect(signInLook.body.background).toBe('rgb(247, 247, 248)');
    expect(await page.locator('main.signin #sign-in.primary').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(31, 95, 191)');
    await shot(page, 'console-sign-in', { docs: true });

    await page.fill('#token', `${token}x`);
    await page.click('#sign-in');
    await page.waitForSelector('#message');
    expect(await page.textContent('#message')).toBe('That token is not valid.');
    expect(await context.cookies()).toEqual([]);

    await page.fill('#token', token);
    await Promise.all([page.waitForURL(`${origin}/`), page.click('#sign-in')]);
    await page.waitForSelector('text=No open session.');
    expect(await look(page)).toEqual(signInLook);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'shellring_signin', httpOnly: true, sameSite: 'Strict', secure: false });
    expect(cookie!.value).not.toContain(token);
    // The page still works after a reload, by its cookie alone.
    await page.reload();
    await page.waitForSelector('text=No open session.');

    for (const address of [...addresses, ...requested]) {
      expect(address).not.toContain(encodeURIComponent(token));
      expect(address).not.toContain(token);
      expect(address).not.toContain('token=');
    }
    await context.close();
  }, 60_000);
});
