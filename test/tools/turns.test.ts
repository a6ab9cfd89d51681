// callTurn: at most PER_TURN calls begin in one turn of the event loop; the rest in the turns that follow, in order.
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
});
