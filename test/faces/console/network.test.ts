// A host the domain policy does not list, put to a person in the console (Debian's chromium against a real
// `shellring serve`): the request names the host and port, allow-always keeps it for the session, reject refuses.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, textOf } from '../helpers.js';
import { shot, startConsole, type LiveConsole } from './live.js';

let live: LiveConsole;
let web: Server;
let port: number;
const configDir = mkdtempSync(join(tmpdir(), 'shellring-console-network-'));

beforeAll(async () => {
  web = createServer((req, res) => res.end(`hello ${req.url}\n`));
  port = await new Promise<number>((resolve) => web.listen(0, '127.0.0.1', () => resolve((web.address() as { port: number }).port)));
  const config = join(configDir, 'config.json');
  const testHostMap = { 'kept.test': '127.0.0.1', 'refused.test': '127.0.0.1' };
  writeFileSync(config, JSON.stringify({ sandbox: { mode: 'workspace-write', network: { mode: 'domains', allow: [], ask: true, testHostMap } } }));
  live = await startConsole('console-network', ['--config', config]);
}, 60_000);

afterAll(async () => {
  await live?.close();
  web.close();
  rmSync(configDir, { recursive: true, force: true });
  expect(live?.dialogs ?? []).toEqual([]);
});

describe('network approvals in the console', () => {
  it('shows the host and port a command connects to; allow-always keeps it for the session, reject refuses', async () => {
    // A client that cannot elicit: the console is the session's person.
    const { tc, sessionId } = await live.connect2025('console-network');
    const page = await live.openPage();
    const curl = (host: string, path: string) => call(tc.client, 'bash', { command: `curl -sS http://${host}:${port}/${path}`, description: `Fetch from ${host}` });
    const first = curl('kept.test', 'a');
    const approval = page.locator('[data-approval][data-kind="network"]');
    await approval.waitFor();
    expect(await approval.textContent()).toContain(`a command connects to kept.test:${port}, which the session's network policy does not list`);
    await page.locator(`[data-session="${sessionId}"] [data-asking]`).filter({ hasText: 'approval waiting' }).waitFor();
    await shot(page, 'console-network-approval');
    expect(await approval.locator('button.always').textContent()).toBe(`Allow kept.test:${port} for this session`);
    await approval.locator('button.always').click();
    expect(textOf(await first)).toBe('hello /a\n');
    await approval.waitFor({ state: 'detached' });
    // Kept for the session: nobody is asked again.
    expect(textOf(await curl('kept.test', 'b'))).toBe('hello /b\n');

    const refused = curl('refused.test', 'x');
    await approval.waitFor();
    await approval.locator('button.reject').click();
    const text = textOf(await refused);
    expect(text.endsWith(`[network: blocked refused.test:${port} — not in the allowed hosts; a person refused it]`), text).toBe(true);
    await page.close();
  });
});
