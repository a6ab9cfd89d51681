// A real `shellring serve` with its console open in chromium, MCP clients of both revisions, and screenshots: kept as
// test artefacts (test/artifacts/console/, ignored by git), and written to docs/ too by `npm run docs:pictures`.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ModernSdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { until } from '../../helpers/until.js';
import { cli, httpTransport, newClient, repo, workdir, type TestClient } from '../helpers.js';
import { MODERN } from '../modern-helpers.js';

/** Debian's package installs it here (.ci/run installs it); CHROMIUM_PATH names another. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTEFACTS = join(repo, 'test/artifacts/console');
/** Set by `npm run docs:pictures`: the pictures README.md and docs/ show are taken from this run. */
const DOCS = process.env.SHELLRING_DOCS_PICTURES === '1' ? join(repo, 'docs') : undefined;

/** A screenshot kept as an artefact; `docs` names the documentation picture it also is. */
export async function shot(target: Page | Locator, name: string, options: { docs?: boolean } = {}): Promise<string> {
  mkdirSync(ARTEFACTS, { recursive: true });
  const path = join(ARTEFACTS, `${name}.png`);
  await target.screenshot({ path });
  if (options.docs && DOCS) copyFileSync(path, join(DOCS, `${name}.png`));
  return path;
}

/** A 2026-07-28 client (the official SDK pinned to it) whose approvals a test answers when it chooses. */
export interface ModernTestClient {
  client: ModernSdkClient;
  /** Messages of the approvals asked, in order. */
  asked: string[];
  /** Answers the approval asked now (waits for one to be asked). */
  answer(decision: 'allow-once' | 'reject'): Promise<void>;
}

export interface LiveConsole {
  url: string;
  token: string;
  origin: string;
  work: string;
  context: BrowserContext;
  /** Pages' dialogs (none may appear: output never runs as code). */
  dialogs: string[];
  openPage(): Promise<Page>;
  /** A 2025-11-25 client (the 1.x SDK) and its MCP session id. */
  connect2025(name: string, title?: string): Promise<{ tc: TestClient; sessionId: string }>;
  connect2026(name: string): Promise<ModernTestClient>;
  close(): Promise<void>;
}

export async function startConsole(prefix: string, flags: string[] = ['--sandbox', 'read-only']): Promise<LiveConsole> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH`);
  const work = workdir(prefix);
  const serve: ChildProcess = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  serve.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const signIn = await until(() => /^shellring: web console at (http:\/\/\S+)$/m.exec(stderr)?.[1], 20_000, 'the console address');
  const url = /listening on (\S+)/.exec(stderr)![1]!;
  const token = /generated for this run\): (\S+)/.exec(stderr)![1]!;
  const origin = new URL(signIn).origin;
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  // Sign-in: the token once in the address, then the cookie; the address bar keeps no token.
  const first = await context.newPage();
  await first.goto(signIn);
  expect(first.url()).toBe(`${origin}/`);
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ name: 'shellring_signin', httpOnly: true, sameSite: 'Strict' });
  await first.close();
  const dialogs: string[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  return {
    url,
    token,
    origin,
    work,
    context,
    dialogs,
    async openPage() {
      const page = await context.newPage();
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${origin}/`);
      return page;
    },
    async connect2025(name, title) {
      const tc = newClient(title ? { name, title } : name);
      const transport = httpTransport(url, token);
      await tc.client.connect(transport);
      closers.push(() => tc.client.close());
      return { tc, sessionId: transport.sessionId! };
    },
    async connect2026(name) {
      const client = new ModernSdkClient({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } });
      const asked: string[] = [];
      const waiting: ((decision: string) => void)[] = [];
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push((request.params as { message: string }).message);
        const decision = await new Promise<string>((resolve) => waiting.push(resolve));
        return { action: 'accept', content: { decision } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      closers.push(() => client.close());
      return {
        client,
        asked,
        async answer(decision) {
          const resolve = await until(() => waiting.shift(), 30_000, 'an approval asked of the 2026 client');
          resolve(decision);
        },
      };
    },
    async close() {
      await Promise.all(closers.map((close) => close().catch(() => {})));
      await browser.close();
      serve.kill('SIGINT');
    },
  };
}
