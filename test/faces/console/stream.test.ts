// Live output over SSE: observer cursors that leave the model's read alone, and a slow reader that costs nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../helpers/until.js';
import { mount, TOKEN, type Mounted } from './server.js';
import { openSse, type SseReader } from './sse.js';

let mounted: Mounted | undefined;
let reader: SseReader | undefined;
afterEach(async () => {
  reader?.close();
  await mounted?.close();
  mounted = reader = undefined;
});


function outputText(events: SseReader['events'], jobId: string): string {
  return events
    .filter((e) => e.event === 'output' && e.data.jobId === jobId)
    .flatMap((e) => e.data.chunks.map((c: { text: string }) => c.text))
    .join('');
}

describe('console stream', () => {
  it('streams a job while it prints and leaves every byte for the model to read', async () => {
    mounted = await mount();
    const session = mounted.runtime.session({ id: 'follow' });
    reader = await openSse(`${mounted.base}/api/stream?session=follow`, TOKEN);
    // After tick 2 the job waits for the test, so it is surely still running when the stream has shown tick 2.
    const gateDir = mkdtempSync(join(tmpdir(), 'shellring-stream-'));
    const gate = join(gateDir, 'go');
    const started = await session.callTool('bash', {
      command: `for i in 1 2; do echo "tick $i"; sleep 0.3; done; until [ -e ${gate} ]; do sleep 0.05; done; for i in 3 4 5; do echo "tick $i"; sleep 0.3; done; echo done >&2`,
      description: 'Print five ticks slowly',
      run_in_background: true,
    });
    const jobId = /bash-\d+/.exec(started.content[0]!.text)![0];
    // Seen while the job still runs: streamed, not delivered at the end.
    await until(() => outputText(reader!.events, jobId).includes('tick 2'), 10_000, 'tick 2 on the stream');
    expect(mounted.runtime.jobs!.list().find((job) => job.id === jobId)!.state).toBe('running');
    writeFileSync(gate, '');
    await until(() => outputText(reader!.events, jobId).includes('done'), 10_000, 'the end on the stream');
    const stderr = reader.events
      .filter((e) => e.event === 'output' && e.data.jobId === jobId)
      .flatMap((e) => e.data.chunks)
      .filter((c: { kind: string }) => c.kind === 'stderr');
    expect(stderr.map((c: { text: string }) => c.text).join('')).toBe('done\n');
    const read = await session.callTool('job_output', { job_id: jobId, wait: true });
    expect(read.content[0]!.text).toBe('tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n[stderr]\ndone\n[status: completed, exit code: 0]');
    const cards = reader.events.filter((e) => e.event === 'card').map((e) => e.data);
    expect(cards.some((card) => card.description === 'Print five ticks slowly' && card.background === true)).toBe(true);
    rmSync(gateDir, { recursive: true, force: true });
  });

  it('holds a bounded amount for a reader that stops reading, then tells it how many bytes it skipped', async () => {
    mounted = await mount();
    const session = mounted.runtime.session({ id: 'slow' });
    reader = await openSse(`${mounted.base}/api/stream?session=slow`, TOKEN);
    reader.pause();
    const started = await session.callTool('bash', {
      command: "head -c 400000000 /dev/zero | tr '\\0' 'a'; echo; echo END-OF-OUTPUT",
      description: 'Print four hundred megabytes fast',
      run_in_background: true,
    });
    const jobId = /bash-\d+/.exec(started.content[0]!.text)![0];
    const stream = mounted.responses.find((res) => res.req.url?.startsWith('/api/stream'))!;
    let most = 0;
    await until(
      () => {
        most = Math.max(most, stream.writableLength);
        return mounted!.runtime.jobs!.list().find((job) => job.id === jobId)?.state === 'completed';
      },
      60_000,
      'the job to finish',
    );
    // One message past the high-water mark at most: 64 KiB of output, JSON-escaped.
    expect(most).toBeLessThan(1024 * 1024);
    reader.resume();
    await until(() => outputText(reader!.events, jobId).includes('END-OF-OUTPUT'), 20_000, 'the last line');
    const skipped = reader.events
      .filter((e) => e.event === 'output' && e.data.jobId === jobId)
      .reduce((sum, e) => sum + e.data.skipped, 0);
    const shown = Buffer.byteLength(outputText(reader.events, jobId));
    expect(skipped).toBeGreaterThan(300_000_000);
    // Every byte is either shown or counted as skipped.
    expect(skipped + shown).toBe(400_000_000 + 1 + 'END-OF-OUTPUT\n'.length);
  });
});

describe('console snapshot', () => {
  it("names sessions by their label, counts the approvals each waits for, and marks the end of a session's cards", async () => {
    mounted = await mount({ sandbox: { mode: 'read-only' } });
    const session = mounted.runtime.session({ id: 'labelled', label: 'nightly build', cwd: mkdtempSync(join(tmpdir(), 'shellring-snapshot-')) });
    mounted.runtime.session({ id: 'plain' });
    await session.callTool('bash', { command: 'echo one', description: 'Print one' });
    reader = await openSse(`${mounted.base}/api/stream?session=labelled`, TOKEN);
    const state = () => reader!.events.filter((e) => e.event === 'state').at(-1)?.data;
    await until(() => state(), 10_000, 'a state');
    expect(state().sessions.map((s: { id: string; label?: string; approvals: number }) => [s.id, s.label, s.approvals])).toEqual([
      ['labelled', 'nightly build', 0],
      ['plain', undefined, 0],
    ]);
    // The page learns when the cards held at connection have all come.
    await until(() => reader!.events.some((e) => e.event === 'synced'), 10_000, 'the synced event');
    const names = reader.events.map((e) => e.event);
    expect(names.indexOf('card')).toBeLessThan(names.indexOf('synced'));
    // An escalation waiting in the console marks its session, and names the call that waits.
    const pending = session.callTool(
      'bash',
      { command: 'echo two', description: 'Print two', sandbox_permissions: 'workspace-write', justification: 'the test asks' },
      { callId: 'call-two' },
    );
    await until(() => state().sessions[0].approvals === 1, 10_000, 'the approval counted');
    expect(state().approvals.map((a: { sessionId: string; callId: string }) => [a.sessionId, a.callId])).toEqual([['labelled', 'call-two']]);
    mounted.approvals.decide(state().approvals[0].id, 'reject');
    await pending;
    await until(() => state().sessions[0].approvals === 0, 10_000, 'the approval gone');
    rmSync(session.cwd, { recursive: true, force: true });
  });
});
