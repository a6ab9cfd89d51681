// Call events: every tool call is seen started and then ended, per session and runtime-wide; observers cannot break calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type CallEvent, type Runtime } from '../../src/index.js';

let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime();
});

afterAll(async () => {
  await runtime.close();
});

describe('call events', () => {
  it('reports started then ended with the result, to the session and to the runtime', async () => {
    const session = runtime.session({ id: 'events-a' });
    const mine: CallEvent[] = [];
    const all: CallEvent[] = [];
    const off = session.onCall((event) => mine.push(event));
    const offAll = runtime.on('call', (event) => all.push(event));
    const args = { command: 'echo hi; exit 4', description: 'exit with status four' };
    await session.callTool('bash', args, { callId: 'c-1' });
    await session.callTool('nope', {});
    off();
    offAll();
    await session.callTool('job_list', {});
    expect(mine.map((e) => [e.type, e.tool])).toEqual([
      ['started', 'bash'],
      ['ended', 'bash'],
      ['started', 'nope'],
      ['ended', 'nope'],
    ]);
    expect(all).toEqual(mine);
    expect(mine[0]).toMatchObject({ type: 'started', sessionId: 'events-a', callId: 'c-1', args });
    const ended = mine[1] as Extract<CallEvent, { type: 'ended' }>;
    expect(ended.callId).toBe('c-1');
    expect(ended.durationMs).toBeGreaterThanOrEqual(0);
    expect(ended.at).toBeGreaterThanOrEqual(mine[0]!.at);
    expect(ended.result.content[0]!.text).toBe('hi\n[exit code: 4]');
    // A call without an id still gets one, the same on both events.
    expect(mine[2]!.callId).toMatch(/^[0-9a-f-]{36}$/);
    expect(mine[3]!.callId).toBe(mine[2]!.callId);
    expect((mine[3] as Extract<CallEvent, { type: 'ended' }>).result.isError).toBe(true);
  });

  it('keeps the call working when a listener throws', async () => {
    const session = runtime.session({ id: 'events-b' });
    const off = session.onCall(() => {
      throw new Error('observer fault');
    });
    const result = await session.callTool('bash', { command: 'echo fine', description: 'print a fine word' });
    off();
    expect(result.content[0]!.text).toBe('fine\n');
  });
});
