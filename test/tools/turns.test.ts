// callTurn: at most PER_TURN calls begin in one turn of the event loop; the rest in the turns that follow, in order.
import { execFileSync } from 'node:child_process';
import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { callTurn, PER_TURN } from '../../src/tools/turns.js';

describe('callTurn', () => {
  it('lets PER_TURN calls begin at once in a turn, then PER_TURN a turn, oldest first', async () => {
    await nextLoopTurn();
    const calls = 2 * PER_TURN + 2;
    const begun: number[] = [];
    const waits = Array.from({ length: calls }, (_, i) => {
      const turn = callTurn();
      if (turn === undefined) begun.push(i);
      else void turn.then(() => begun.push(i));
      return turn;
    });
    expect(waits.slice(0, PER_TURN)).toEqual(Array(PER_TURN).fill(undefined));
    expect(waits.slice(PER_TURN).every((w) => w instanceof Promise)).toBe(true);
    const byTurn = [begun.length];
    while (begun.length < calls) {
      await nextLoopTurn();
      byTurn.push(begun.length);
    }
    expect(byTurn).toEqual([PER_TURN, 2 * PER_TURN, calls]);
    expect(begun).toEqual(Array.from({ length: calls }, (_, i) => i));
  });

  it('counts a call that comes from one begun in the same turn against that turn', async () => {
    await nextLoopTurn();
    for (let i = 0; i < PER_TURN - 1; i++) expect(callTurn()).toBeUndefined();
    let followUp: Promise<void> | undefined;
    await (callTurn() ?? Promise.resolve()).then(() => {
      followUp = callTurn();
    });
    expect(followUp).toBeInstanceOf(Promise);
    let begun = false;
    void followUp!.then(() => {
      begun = true;
    });
    await nextLoopTurn();
    expect(begun).toBe(true);
  });

  it('keeps the process alive while calls wait for a turn, and an idle one exits behind its last call', () => {
    const turns = JSON.stringify(new URL('../../dist/src/tools/turns.js', import.meta.url).href);
    const script = (body: string): string =>
      // The import's own I/O is let settle first: a loop still busy with it would run an unreferenced turn's end too.
      execFileSync(process.execPath, ['--input-type=module', '-e', `const { callTurn, PER_TURN } = await import(${turns}); await new Promise((r) => setTimeout(r, 20)); ${body}`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    // With nothing else to keep it, a waiting call alone must: its top-level await would end the process unsettled.
    expect(script('for (let i = 0; i < PER_TURN; i++) callTurn(); await callTurn(); console.log("begun");')).toBe('begun\n');
    expect(script('callTurn(); console.log("ran");')).toBe('ran\n');
  });
});
