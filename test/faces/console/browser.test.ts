// The console in a real browser (Debian's chromium) against a real `shellring serve`, jobs started over MCP.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, jobIdOf, textOf } from '../helpers.js';
import { shot, startConsole, type LiveConsole } from './live.js';

/** How long a poll of the page waits: generous, the machine may be loaded; a poll ends as soon as it holds. */
const SETTLE = { timeout: 20_000 };

let live: LiveConsole;
let work: string;

const connect = (name: string) => live.connect2025(name);

/** The console, showing (and so pinned to) `sessionId` when one is named. */
async function openPage(sessionId?: string): Promise<Page> {
  const page = await live.openPage();
  if (sessionId) await page.click(`[data-session="${sessionId}"]`);
  return page;
}

beforeAll(async () => {
  live = await startConsole('console');
  work = live.work;
}, 60_000);

afterAll(async () => {
  await live?.close();
  expect(live?.dialogs ?? []).toEqual([]);
});

describe('the web console in chromium', () => {
  it('shows a job as soon as it starts and streams its output while it prints', async () => {
    const { tc, sessionId } = await connect('console-live');
    const page = await openPage(sessionId);
    const jobId = jobIdOf(
      textOf(
        await call(tc.client, 'bash', {
          // Six steps, then the rest once the test has seen them in the page: it is seen while the command runs.
          command: `for i in $(seq 1 6); do echo "step $i of 40"; done; until [ -e go-live ]; do sleep 0.05; done; for i in $(seq 7 40); do echo "step $i of 40"; done`,
          description: 'Count forty steps slowly',
          run_in_background: true,
        }),
      ),
    );
    await page.waitForSelector(`[data-job="${jobId}"]`);
    // The session: its directory, mode, live jobs and last activity.
    const item = page.locator(`[data-session="${sessionId}"]`);
    await item.filter({ hasText: '1 live' }).waitFor();
    expect(await item.locator('[data-session-label]').textContent()).toBe('console-live');
    expect(await item.locator('.cwd').textContent()).toBe(work);
    expect(await item.locator('.meta').textContent()).toMatch(/^read-only1 live · \d+s ago$/);
    const output = page.locator(`pre[data-output="${jobId}"]`).first();
    await output.filter({ hasText: 'step 3 of 40' }).waitFor();
    // Seen in the page while the command still prints, not at its end.
    expect(await output.textContent()).not.toContain('step 40 of 40');
    await output.filter({ hasText: 'step 6 of 40' }).waitFor();
    writeFileSync(join(work, 'go-live'), '');
    await expect.poll(() => page.locator(`[data-call] .label`).first().textContent(), SETTLE).toBe('Count forty steps slowly');
    await shot(page, 'console-live', { docs: true });
    // The page read through its own cursor: the model still reads every line from the start.
    const read = textOf(await call(tc.client, 'job_output', { job_id: jobId, wait: true, timeout_ms: 30_000 }));
    expect(read.startsWith('step 1 of 40\nstep 2 of 40\n')).toBe(true);
    expect(read).toContain('step 40 of 40\n[status: completed, exit code: 0]');
    await page.close();
  });

  it('stops a command a tool call waits on, and the model reads the reason', async () => {
    const { tc, sessionId } = await connect('console-stop');
    const page = await openPage(sessionId);
    const pending = call(tc.client, 'bash', { command: 'echo waiting; sleep 60; echo never', description: 'Wait for a whole minute' });
    const row = page.locator('tr[data-job]').filter({ hasText: 'Wait for a whole minute' });
    await row.locator('[data-waited]').waitFor();
    await row.locator('button.stop').click();
    await page.fill('.stopform input[name="reason"]', 'the person needs the machine now');
    await shot(page, 'console-stop', { docs: true });
    await page.click('.stopform button[type="submit"]');
    const text = textOf(await pending);
    expect(text).toBe('waiting\n[stopped: the person needs the machine now]\n[killed by signal: SIGTERM]');
    // The card ends with the exit pill parsed from that result.
    const card = page.locator('[data-call]').filter({ hasText: 'Wait for a whole minute' });
    await expect.poll(() => card.locator('[data-pill]').textContent(), SETTLE).toBe('stopped');
    await expect.poll(() => card.locator('[data-stopped]').textContent(), SETTLE).toBe('stopped: the person needs the machine now');
    await expect.poll(() => card.locator('pre.result').textContent(), SETTLE).toContain('[stopped: the person needs the machine now]');
    await page.close();
  });

  it('runs an escalation a person allows once, exactly once, and never one they reject', async () => {
    const { tc, sessionId } = await connect('console-approve');
    const page = await openPage(sessionId);
    const escalated = {
      command: 'echo once >> marker.txt && wc -l < marker.txt',
      description: 'Append one line to the marker',
      sandbox_permissions: 'workspace-write',
      justification: 'the task records that it ran',
    };
    const first = call(tc.client, 'bash', escalated);
    const approval = page.locator('[data-approval]');
    await approval.waitFor();
    const shown = await approval.textContent();
    expect(shown).toContain('echo once >> marker.txt && wc -l < marker.txt');
    expect(shown).toContain(work);
    expect(shown).toContain('workspace-write');
    expect(shown).toContain('the task records that it ran');
    // The call's card waits for the person, and the session is marked as waiting for one.
    const card = page.locator('[data-call]').filter({ hasText: 'Append one line to the marker' });
    await card.and(page.locator('[data-phase="console"]')).waitFor();
    expect(await card.locator('[data-pill]').textContent()).toBe('waiting for your approval');
    await page.locator(`[data-session="${sessionId}"] [data-asking]`).filter({ hasText: 'approval waiting' }).waitFor();
    await shot(page, 'console-approval', { docs: true });
    await approval.locator('button.allow').click();
    expect(textOf(await first)).toBe('1\n');
    await approval.waitFor({ state: 'detached' });
    await card.and(page.locator('[data-phase="ended"]')).waitFor();
    await page.locator(`[data-session="${sessionId}"] [data-asking]`).waitFor({ state: 'detached' });

    const second = call(tc.client, 'bash', escalated);
    await approval.waitFor();
    await approval.locator('button.reject').click();
    const rejected = await second;
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected)).toBe('Error: the user rejected escalating this command to "workspace-write"');
    // The grant covered one call: the same write without escalation is denied by the sandbox.
    const plain = textOf(await call(tc.client, 'bash', { command: 'echo again >> marker.txt', description: 'Append without asking first' }));
    expect(plain).toContain('[sandbox: file access denied under read-only mode]');
    expect(readFileSync(join(work, 'marker.txt'), 'utf8')).toBe('once\n');
    await page.close();
  });

  it('sets a session\'s standing sandbox mode', async () => {
    const { tc, sessionId } = await connect('console-mode');
    const page = await openPage(sessionId);
    await page.selectOption('[data-mode-select]', 'workspace-write');
    await page.click('text=Set mode');
    await page.locator(`[data-session="${sessionId}"]`).filter({ hasText: 'workspace-write' }).waitFor();
    const text = textOf(await call(tc.client, 'bash', { command: 'echo standing > standing.txt && cat standing.txt', description: 'Write under the standing mode' }));
    expect(text).toBe('standing\n');
    await page.close();
  });

  it('renders hostile output as text: colours only, no element, script or link from the command', async () => {
    const { tc, sessionId } = await connect('console-hostile');
    const page = await openPage(sessionId);
    const hostile =
      "printf '<img src=x onerror=alert(1)>\\n\\033[31mred words\\033[0m\\n\\033]8;;javascript:alert(3)\\033\\\\click me\\033]8;;\\033\\\\\\n<script>alert(2)</script>\\n'";
    const jobId = jobIdOf(textOf(await call(tc.client, 'bash', { command: `${hostile}; sleep 30`, description: 'Print hostile text live', run_in_background: true })));
    await call(tc.client, 'bash', { command: hostile, description: 'Print hostile text and end' });
    const running = page.locator(`pre[data-output="${jobId}"]`);
    const done = page.locator('[data-call]').filter({ hasText: 'Print hostile text and end' }).locator('pre.result');
    for (const block of [running, done]) {
      await block.filter({ hasText: '<script>alert(2)</script>' }).waitFor();
      expect(await block.textContent()).toContain('<img src=x onerror=alert(1)>');
      expect(await block.locator('img, script, a, iframe').count()).toBe(0);
      expect(await block.locator('.ansi-red-fg').first().textContent()).toBe('red words');
      expect(await block.textContent()).toContain('click me');
    }
    expect(await page.locator('main img, main a[href^="javascript"]').count()).toBe(0);
    await page.waitForTimeout(300);
    expect(live.dialogs).toEqual([]);
    await call(tc.client, 'job_kill', { job_id: jobId });
    await page.close();
  });

  it('downloads a truncated result\'s spill file through its link', async () => {
    const { tc, sessionId } = await connect('console-spill');
    const page = await openPage(sessionId);
    await call(tc.client, 'bash', { command: 'seq 1 200000', description: 'Print two hundred thousand numbers' });
    const link = page.locator('[data-call]').filter({ hasText: 'Print two hundred thousand numbers' }).locator('a.spill');
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const saved = await download.path();
    const text = readFileSync(saved, 'utf8');
    expect(text.split('\n').length).toBe(200001);
    expect(text.endsWith('199999\n200000\n')).toBe(true);
    await page.close();
  });

  it('opens on the session with the newest activity, with the task list above its timeline', async () => {
    const older = await connect('console-older');
    const newer = await connect('console-newer');
    await call(newer.tc.client, 'bash', { command: 'echo first', description: 'Print in the other session' });
    await call(older.tc.client, 'bash', { command: 'seq 1 400', description: 'Print a long output last' });
    const page = await openPage();
    await page.locator(`[data-session="${older.sessionId}"].selected`).waitFor();
    await page.locator('[data-call]').filter({ hasText: 'Print a long output last' }).waitFor();
    const tasks = await page.locator('table').first().boundingBox();
    const timeline = await page.locator('section.timeline').boundingBox();
    expect(tasks!.y).toBeLessThan(timeline!.y);
    await page.close();
  });

  it('opens a live pane on output that is already long at its newest line, and follows it unless scrolled up', async () => {
    const { tc, sessionId } = await connect('console-follow');
    const jobId = jobIdOf(
      textOf(
        await call(tc.client, 'bash', {
          command: 'seq 1 3000; while :; do sleep 0.3; echo tick; done',
          description: 'Print much, then tick',
          run_in_background: true,
        }),
      ),
    );
    const page = await openPage(sessionId);
    const pre = page.locator(`pre[data-output="${jobId}"]`).first();
    await pre.filter({ hasText: 'tick' }).waitFor();
    const atBottom = () => pre.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 4);
    await expect.poll(atBottom, SETTLE).toBe(true);
    await pre.evaluate((el) => (el.scrollTop = 0));
    const ticks = async () => (await pre.textContent())!.split('tick').length;
    const before = await ticks();
    await expect.poll(ticks, SETTLE).toBeGreaterThan(before + 1);
    expect(await pre.evaluate((el) => el.scrollTop)).toBe(0);
    await call(tc.client, 'job_kill', { job_id: jobId });
    await page.close();
  });

  it('shows what a silent job waits for', async () => {
    const { tc, sessionId } = await connect('console-waiting');
    const page = await openPage(sessionId);
    const jobId = jobIdOf(
      textOf(
        await call(tc.client, 'bash', {
          command: `python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); s.accept()'`,
          description: 'Wait for a callback',
          run_in_background: true,
        }),
      ),
    );
    const row = page.locator(`tr[data-job="${jobId}"]`);
    await row.locator('[data-waiting]').waitFor({ timeout: 30_000 });
    expect(await row.locator('[data-waiting]').textContent()).toMatch(/^\[waiting: pid \d+ \(python3[.\d]*\) accepts connections on 127\.0\.0\.1:\d+\]$/);
    await call(tc.client, 'job_kill', { job_id: jobId });
    await page.close();
  });

  it('types into a terminal job from its panel: the REPL answers on the screen, and the model reads the reply', async () => {
    const { tc, sessionId } = await connect('console-terminal');
    const page = await openPage(sessionId);
    const jobId = jobIdOf(
      textOf(await call(tc.client, 'bash', { command: 'python3 -i -q', description: 'Start a Python REPL', run_in_background: true, tty: true })),
    );
    await page.locator(`tr[data-job="${jobId}"] button.open`).click();
    const screen = page.locator(`[data-terminal="${jobId}"] [data-screen]`);
    await screen.filter({ hasText: '>>>' }).waitFor(SETTLE);
    await page.locator(`[data-terminal="${jobId}"] [data-typing]`).fill('print(6*7)');
    await page.locator(`[data-terminal="${jobId}"] [data-typing]`).press('Enter');
    await screen.filter({ hasText: '42' }).waitFor(SETTLE);
    expect(await screen.textContent()).toMatch(/^>>> print\(6\*7\)\n42\n>>>/);
    // The model reads what the person's typing produced.
    await expect.poll(async () => textOf(await call(tc.client, 'job_output', { job_id: jobId })), SETTLE).toContain('42');
    await page.locator(`[data-terminal="${jobId}"] button`, { hasText: 'ctrl-d' }).click();
    const ended = textOf(await call(tc.client, 'job_output', { job_id: jobId, wait: true, timeout_ms: 30_000 }));
    expect(ended).toContain('[status: completed, exit code: 0]');
    await page.close();
  });

  it('lists 200 jobs and scrolls to the last', async () => {
    const started: string[] = [];
    const opened = await Promise.all(Array.from({ length: 20 }, (_, i) => connect(`console-many-${i}`)));
    await Promise.all(
      opened.map(async ({ tc }, i) => {
        for (let j = 0; j < 10; j += 1) {
          const text = textOf(await call(tc.client, 'bash', { command: 'sleep 120', description: `Idle job ${i}-${j}`, run_in_background: true }));
          started.push(jobIdOf(text));
        }
      }),
    );
    const page = await openPage();
    await expect.poll(() => page.locator('tr[data-job]').count(), SETTLE).toBeGreaterThanOrEqual(200);
    for (const id of started) expect(await page.locator(`tr[data-job="${id}"]`).count()).toBe(1);
    const scroller = page.locator('[data-tasks]');
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const last = page.locator('tr[data-job]').last();
    await expect.poll(() => last.isVisible(), SETTLE).toBe(true);
    const box = (await last.boundingBox())!;
    const frame = (await scroller.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(frame.y + frame.height + 1);
    await shot(page.locator('.tasks'), 'console-tasks', { docs: true });
    await page.close();
    await Promise.all(opened.map(({ tc }) => tc.client.close()));
  }, 120_000);
});
