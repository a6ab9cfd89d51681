// The console follows the work, in chromium against a real `shellring serve` with MCP clients of both revisions: it
// opens on and moves to the session waiting for a person or running jobs unless one is pinned; sessions carry their
// clients' names; tasks run first, then newest; the timeline follows its tail until the person scrolls; a task row
// brings its card into view; a 2026-07-28 approval is one card that waits, then holds the result.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, jobIdOf, textOf } from '../helpers.js';
import { shot, startConsole, type LiveConsole } from './live.js';

/** How long a poll of the page waits: generous, the machine may be loaded; a poll ends as soon as it holds. */
const SETTLE = { timeout: 20_000 };

let live: LiveConsole;

beforeAll(async () => {
  live = await startConsole('console-follow');
}, 60_000);

afterAll(async () => {
  await live?.close();
  expect(live?.dialogs ?? []).toEqual([]);
});

const shownSession = (page: Page) => page.locator('[data-session].selected').getAttribute('data-session');
const labelOf = (page: Page, sessionId: string) => page.locator(`[data-session="${sessionId}"] [data-session-label]`).textContent();
/** The session listed with this label (the 2026 states have ids the client never sees). */
const sessionLabelled = async (page: Page, label: string) => {
  const item = page.locator('[data-session]').filter({ has: page.locator('[data-session-label]', { hasText: new RegExp(`^${label}$`) }) });
  await item.waitFor();
  return (await item.getAttribute('data-session'))!;
};
/** The card of the call with this description. */
const cardOf = (page: Page, description: string) => page.locator('[data-call]').filter({ has: page.locator('.label', { hasText: new RegExp(`^${description}$`) }) });
/** Whether the card's top lies inside the timeline's visible part. */
async function inTimelineView(page: Page, description: string): Promise<boolean> {
  const scroller = (await page.locator('[data-timeline]').boundingBox())!;
  const box = await cardOf(page, description).boundingBox();
  return box !== null && box.y >= scroller.y - 1 && box.y < scroller.y + scroller.height && box.height > 0;
}
const atBottom = (page: Page) => page.locator('[data-timeline]').evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 8);

describe('a console that follows the work', () => {
  let builder: Awaited<ReturnType<LiveConsole['connect2025']>>;
  let writer: Awaited<ReturnType<LiveConsole['connect2025']>>;

  it('opens on the session running a job rather than the newest idle one, names sessions by their clients, and moves to where work goes on', async () => {
    builder = await live.connect2025('build-agent', 'Build agent');
    writer = await live.connect2025('docs-writer');
    const ticking = jobIdOf(
      textOf(await call(builder.tc.client, 'bash', { command: 'while :; do echo tick; sleep 0.2; done', description: 'Tick until stopped', run_in_background: true })),
    );
    await call(writer.tc.client, 'bash', { command: 'echo written', description: 'Write the docs' });
    const page = await live.openPage();
    await expect.poll(() => shownSession(page), SETTLE).toBe(builder.sessionId);
    expect(await page.locator('[data-follow]').getAttribute('data-follow')).toBe('following');
    expect(await labelOf(page, builder.sessionId)).toBe('Build agent');
    expect(await labelOf(page, writer.sessionId)).toBe('docs-writer');
    expect(await page.locator('[data-shown-session]').textContent()).toBe('Build agent');

    // A 2026-07-28 client starts work, then the builder's job ends: the console moves to the session still working.
    const reviewer = await live.connect2026('review-agent');
    const review = (await reviewer.client.callTool({
      name: 'bash',
      arguments: { command: 'while :; do echo reviewing; sleep 0.2; done', description: 'Review until stopped', run_in_background: true },
    })) as { content: { text: string }[] };
    const reviewJob = jobIdOf(review.content[0]!.text);
    const reviewSession = await sessionLabelled(page, 'review-agent');
    // The shown session still runs a job: the console stays with it.
    await page.locator(`tr[data-job="${reviewJob}"]`).waitFor();
    expect(await shownSession(page)).toBe(builder.sessionId);
    await call(builder.tc.client, 'job_kill', { job_id: ticking });
    await expect.poll(() => shownSession(page), SETTLE).toBe(reviewSession);
    await page.locator('[data-call]').filter({ hasText: 'Review until stopped' }).locator('pre[data-output]').filter({ hasText: 'reviewing' }).waitFor();
    await shot(page, 'console-follow', { docs: true });
    await reviewer.client.callTool({ name: 'job_kill', arguments: { job_id: reviewJob } });
    await page.close();
  });

  it('stays on a session the person pinned, shows the pin, and follows the work again when unpinned', async () => {
    const page = await live.openPage();
    await page.click(`[data-session="${writer.sessionId}"]`);
    await page.locator(`[data-session="${writer.sessionId}"] [data-pinned]`).waitFor();
    expect(await page.locator('[data-follow]').textContent()).toContain('Pinned to docs-writer');
    expect(new URL(page.url()).hash).toBe(`#pin=${writer.sessionId}`);
    // Work starts elsewhere: the pinned page stays, through more than one snapshot of that work.
    const job = jobIdOf(textOf(await call(builder.tc.client, 'bash', { command: 'while :; do echo more; sleep 0.2; done', description: 'Tick again', run_in_background: true })));
    const bytes = page.locator(`tr[data-job="${job}"] td:nth-child(7)`);
    await bytes.waitFor();
    const first = await bytes.textContent();
    await expect.poll(() => bytes.textContent(), SETTLE).not.toBe(first);
    expect(await shownSession(page)).toBe(writer.sessionId);
    // A reload keeps the pin (it is in the address).
    await page.reload();
    await page.locator(`[data-session="${writer.sessionId}"].selected [data-pinned]`).waitFor();
    await page.click('[data-unpin]');
    await expect.poll(() => shownSession(page), SETTLE).not.toBe(writer.sessionId);
    expect(await page.locator('[data-pinned]').count()).toBe(0);
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.locator('[data-follow]').getAttribute('data-follow')).toBe('following');
    await call(builder.tc.client, 'job_kill', { job_id: job });
    await page.close();
  });

  it('lists running tasks first, then the newest, with the reason a person stopped one', async () => {
    const { tc } = await live.connect2025('task-runner');
    const start = async (command: string, description: string) =>
      jobIdOf(textOf(await call(tc.client, 'bash', { command, description, run_in_background: true })));
    const a = await start('echo a', 'Finish at once (a)');
    const b = await start('sleep 120', 'Keep running (b)');
    const c = await start('echo c', 'Finish at once (c)');
    const d = await start('sleep 120', 'Keep running (d)');
    const e = await start('sleep 120', 'Be stopped (e)');
    await call(tc.client, 'job_output', { job_id: c, wait: true, timeout_ms: 30_000 });
    await call(tc.client, 'job_output', { job_id: a, wait: true, timeout_ms: 30_000 });
    const page = await live.openPage();
    const row = page.locator(`tr[data-job="${e}"]`);
    await row.locator('button.stop').click();
    await page.fill('.stopform input[name="reason"]', 'not needed any more');
    await page.click('.stopform button[type="submit"]');
    await row.locator('[data-reason]').filter({ hasText: 'stopped: not needed any more' }).waitFor();
    const mine = new Set([a, b, c, d, e]);
    const order = async () => (await page.locator('tr[data-job]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job')))).filter((id) => mine.has(id!));
    await expect.poll(order, SETTLE).toEqual([d, b, e, c, a]);
    // Every running row of the whole list stands above every other row.
    const states = await page.locator('tr[data-job] .state').allTextContents();
    expect(states.indexOf('running')).toBe(0);
    expect(states.lastIndexOf('running')).toBeLessThan(states.findIndex((state) => state !== 'running' && state !== 'stopping'));
    await shot(page.locator('.tasks'), 'console-task-order');
    for (const id of [b, d]) await call(tc.client, 'job_kill', { job_id: id });
    await page.close();
  });

  it('keeps the newest card in view while the person follows, stops when they scroll up, and resumes at the bottom; a task row brings its card into view', async () => {
    const { tc, sessionId } = await live.connect2025('long-session');
    const early = jobIdOf(textOf(await call(tc.client, 'bash', { command: 'echo early; sleep 120', description: 'Start early and wait', run_in_background: true })));
    for (let i = 1; i <= 30; i += 1) await call(tc.client, 'bash', { command: `echo line ${i}`, description: `Print line ${i}` });
    const page = await live.openPage();
    await page.click(`[data-session="${sessionId}"]`);
    await cardOf(page, 'Print line 30').waitFor();
    await expect.poll(() => atBottom(page), SETTLE).toBe(true);
    expect(await inTimelineView(page, 'Print line 30')).toBe(true);
    expect(await inTimelineView(page, 'Print line 1')).toBe(false);

    // Calls keep coming: each new card is in view.
    const live1 = jobIdOf(textOf(await call(tc.client, 'bash', { command: 'for i in $(seq 1 2000); do echo "row $i"; sleep 0.05; done', description: 'Print rows live', run_in_background: true })));
    await cardOf(page, 'Print rows live').locator('pre[data-output]').filter({ hasText: 'row 3' }).waitFor();
    await expect.poll(() => inTimelineView(page, 'Print rows live'), SETTLE).toBe(true);
    await expect.poll(() => atBottom(page), SETTLE).toBe(true);

    // The person scrolls up: following stops, and a new card no longer moves the view.
    // At the timeline's edge, beside the cards, whose outputs would scroll on their own first.
    const edge = (await page.locator('[data-timeline]').boundingBox())!;
    await page.mouse.move(edge.x + 1, edge.y + edge.height / 2);
    await page.mouse.wheel(0, -1500);
    await expect.poll(() => page.locator('[data-timeline]').getAttribute('data-following'), SETTLE).toBe('false');
    await page.locator('[data-jump]').waitFor();
    const held = await page.locator('[data-timeline]').evaluate((el) => el.scrollTop);
    await call(tc.client, 'bash', { command: 'echo after scrolling', description: 'Print after scrolling' });
    await cardOf(page, 'Print after scrolling').waitFor();
    expect(await page.locator('[data-timeline]').evaluate((el) => el.scrollTop)).toBe(held);
    expect(await atBottom(page)).toBe(false);

    // Back at the bottom, it follows again.
    await page.mouse.move(edge.x + 1, edge.y + edge.height / 2);
    await page.mouse.wheel(0, 100_000);
    await expect.poll(() => page.locator('[data-timeline]').getAttribute('data-following'), SETTLE).toBe('true');
    await call(tc.client, 'bash', { command: 'echo at the bottom', description: 'Print at the bottom' });
    await cardOf(page, 'Print at the bottom').waitFor();
    await expect.poll(() => inTimelineView(page, 'Print at the bottom'), SETTLE).toBe(true);
    await expect.poll(() => atBottom(page), SETTLE).toBe(true);

    // A task row brings its call's card into view, marked, and the view stays there.
    expect(await inTimelineView(page, 'Start early and wait')).toBe(false);
    await page.click(`tr[data-job="${early}"]`);
    await expect.poll(() => inTimelineView(page, 'Start early and wait'), SETTLE).toBe(true);
    await cardOf(page, 'Start early and wait').and(page.locator('.selected')).waitFor();
    expect(await page.locator('[data-timeline]').getAttribute('data-following')).toBe('false');
    await shot(page, 'console-reveal');
    for (const id of [early, live1]) await call(tc.client, 'job_kill', { job_id: id });
    await page.close();
  });

  it('opens a job in its own panel, which keeps following it when the console moves to its session', async () => {
    // The console shows another session first, so opening the panel moves it (a new stream).
    const elsewhere = await live.connect2025('panel-elsewhere');
    const waiting = jobIdOf(textOf(await call(elsewhere.tc.client, 'bash', { command: 'sleep 120', description: 'Wait elsewhere', run_in_background: true })));
    const page = await live.openPage();
    await page.click(`[data-session="${elsewhere.sessionId}"]`);
    await expect.poll(() => shownSession(page), SETTLE).toBe(elsewhere.sessionId);
    const { tc, sessionId } = await live.connect2025('panel-session');
    const job = jobIdOf(
      textOf(await call(tc.client, 'bash', { command: 'for i in 1 2 3; do echo "panel $i"; done; sleep 120', description: 'Print into a panel', run_in_background: true })),
    );
    await page.locator(`tr[data-job="${job}"] button.open`).click();
    await expect.poll(() => shownSession(page), SETTLE).toBe(sessionId);
    await page.locator(`[data-panel="${job}"] pre[data-output]`).filter({ hasText: 'panel 3' }).waitFor();
    expect(await page.locator(`[data-panel="${job}"] pre[data-output]`).textContent()).toBe('panel 1\npanel 2\npanel 3\n');
    expect(await page.locator(`[data-panel="${job}"] h2`).textContent()).toContain('Print into a panel');
    await page.locator(`[data-panel="${job}"] button`).click();
    await page.locator('[data-panel]').waitFor({ state: 'detached' });
    await call(tc.client, 'job_kill', { job_id: job });
    await call(elsewhere.tc.client, 'job_kill', { job_id: waiting });
    await page.close();
  });
});

describe('a 2026-07-28 approval', () => {
  it('is one card that waits while the client asks its user, then holds the result; the console moves to it', async () => {
    const approver = await live.connect2026('approver');
    const opened = (await approver.client.callTool({ name: 'session_open', arguments: {} })) as { structuredContent: { session: string } };
    const handle = opened.structuredContent.session;
    const page = await live.openPage();
    const args = {
      session: handle,
      command: 'echo approved > approved.txt && cat approved.txt',
      description: 'Write the approved file',
      sandbox_permissions: 'workspace-write',
      justification: 'the run records its approval',
    };
    const pending = approver.client.callTool({ name: 'bash', arguments: args });
    const sessionId = await sessionLabelled(page, 'approver');
    await expect.poll(() => shownSession(page), SETTLE).toBe(sessionId);
    const cards = page.locator('[data-call]').filter({ hasText: 'Write the approved file' });
    await cards.and(page.locator('[data-phase="client"]')).waitFor();
    expect(await cards.count()).toBe(1);
    expect(await cards.locator('[data-pill]').textContent()).toBe('waiting for approval in the client');
    await page.locator(`[data-session="${sessionId}"] [data-asking]`).filter({ hasText: 'approval waiting' }).waitFor();
    await shot(page, 'console-approval-2026', { docs: true });
    // The person stays with it (the console would follow other sessions' work once this one has none).
    await page.click(`[data-session="${sessionId}"]`);
    await approver.answer('allow-once');
    const result = (await pending) as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('approved\n');
    await cards.and(page.locator('[data-phase="ended"]')).waitFor();
    expect(await cards.count()).toBe(1);
    expect(await cards.locator('[data-pill]').textContent()).toBe('exit 0');
    expect(await cards.locator('pre.result').textContent()).toBe('approved\n');
    expect(await page.locator('[data-call]').filter({ hasText: 'approval cancelled' }).count()).toBe(0);
    await page.locator(`[data-session="${sessionId}"] [data-asking]`).waitFor({ state: 'detached' });

    // Rejected, it is one card too, holding the refusal.
    const refused = approver.client.callTool({ name: 'bash', arguments: { ...args, command: 'echo no > refused.txt', description: 'Write a refused file' } });
    const refusedCard = page.locator('[data-call]').filter({ hasText: 'Write a refused file' });
    await refusedCard.and(page.locator('[data-phase="client"]')).waitFor();
    await approver.answer('reject');
    expect(((await refused) as { isError?: boolean }).isError).toBe(true);
    await refusedCard.and(page.locator('[data-phase="ended"]')).waitFor();
    expect(await refusedCard.count()).toBe(1);
    expect(await refusedCard.locator('pre.result').textContent()).toBe('Error: the user rejected escalating this command to "workspace-write"');
    expect(approver.asked).toHaveLength(2);
    await page.close();
  });
});
