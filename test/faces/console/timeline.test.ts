// The console's timeline within its bounds: cards cut to their end, one session's cards within its bytes (older
// cards lose their text first, then leave), closed sessions forgotten, and the full output still reachable by spill.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CARD_TEXT_CHARS, CARDS_PER_SESSION, Timeline, TIMELINE_BYTES_PER_SESSION } from '../../../src/faces/console/timeline.js';
import { bash, until } from '../../helpers/calls.js';
import { runtimes } from '../../helpers/runtimes.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-timeline-')));

describe('console timeline bounds', () => {
  it('keeps a bounded window: 64 KiB results cut to their last 8 KiB, older texts dropped, the whole in the spill file', async () => {
    const runtime = await open();
    const timeline = new Timeline(runtime);
    try {
      const session = runtime.session({ id: 'many-calls', cwd: work });
      for (let i = 0; i < 60; i += 1) await bash(session, `printf '%065536d' ${i}`);
      const cards = timeline.cards('many-calls');
      expect(cards).toHaveLength(60);
      expect(timeline.retainedBytes).toBeLessThanOrEqual(TIMELINE_BYTES_PER_SESSION);
      const newest = cards.at(-1)!.result!;
      // 64000 characters of tail, then the truncation line: the card keeps the end, where the marker is.
      expect(newest.text).toHaveLength(CARD_TEXT_CHARS);
      expect(newest.text.endsWith(`00059\n[output truncated; full output: ${newest.spills[0]}]`)).toBe(true);
      expect(newest.cut + newest.text.length).toBeGreaterThan(64_000);
      expect(readFileSync(newest.spills[0]!, 'utf8')).toBe(`${'0'.repeat(65_534)}59`);
      // The oldest cards stay, with their command and exit pill, but without text; the page says how much is not shown.
      const oldest = cards[0]!;
      expect(oldest.command).toBe("printf '%065536d' 0");
      expect(oldest.result!.text).toBe('');
      expect(oldest.result!.cut).toBeGreaterThan(64_000);
      expect(oldest.result!.exitCode).toBe(0);
      expect(existsSync(oldest.result!.spills[0]!)).toBe(true);
    } finally {
      timeline.close();
    }
  });

  it("takes a card's exit pill from the result's facts: output shaped like a marker stays output", async () => {
    const runtime = await open();
    const timeline = new Timeline(runtime);
    try {
      const session = runtime.session({ id: 'pills', cwd: work });
      await bash(session, "printf 'done\\n[exit code: 3]'");
      await bash(session, "echo failing; exit 3");
      const [looksFailed, failed] = timeline.cards('pills').map((card) => card.result!);
      expect(looksFailed).toMatchObject({ text: 'done\n[exit code: 3]', exitCode: 0 });
      expect(failed).toMatchObject({ text: 'failing', exitCode: 3 });
    } finally {
      timeline.close();
    }
  });

  it('keeps at most CARDS_PER_SESSION cards, and forgets a closed session on its own', async () => {
    const runtime = await open();
    const timeline = new Timeline(runtime);
    try {
      const session = runtime.session({ id: 'count', cwd: work });
      for (let i = 0; i < CARDS_PER_SESSION + 5; i += 1) await session.callTool('job_list', {});
      expect(timeline.cards('count')).toHaveLength(CARDS_PER_SESSION);
      expect(timeline.retainedBytes).toBeGreaterThan(0);
      await session.close();
      // No page asks for a snapshot here: the timeline's own sweep forgets the closed session.
      await until(() => timeline.retainedBytes === 0, 20_000, 'the closed session forgotten');
      expect(timeline.cards('count')).toEqual([]);
    } finally {
      timeline.close();
    }
  });
});

describe('a call that returns to ask its client', () => {
  it('keeps one card: waiting until its time runs out, continued by the call with the same id, bytes counted once', async () => {
    const runtime = await open();
    const timeline = new Timeline(runtime);
    try {
      const session = runtime.session({ id: 'asking', cwd: work });
      const deadline = Date.now() + 60_000;
      await session.callTool('bash', { command: 'echo first round', description: 'Ask first' }, { callId: 'round-trip', suspended: () => deadline });
      const [waiting] = timeline.cards('asking');
      expect(waiting).toMatchObject({ callId: 'round-trip', suspendedUntil: deadline });
      expect(timeline.awaiting('asking')).toBe(1);
      // Past its time nobody answers any more: it is no longer counted.
      expect(timeline.awaiting('asking', deadline + 1)).toBe(0);
      expect(timeline.awaiting('asking')).toBe(0);
      const bytes = timeline.retainedBytes;
      await session.callTool('bash', { command: 'echo first round', description: 'Ask first' }, { callId: 'round-trip' });
      const cards = timeline.cards('asking');
      expect(cards).toHaveLength(1);
      expect(cards[0]!.suspendedUntil).toBeUndefined();
      expect(cards[0]!.result!.text).toBe('first round\n');
      expect(cards[0]!.startedAt).toBe(waiting!.startedAt);
      expect(timeline.retainedBytes).toBe(bytes);
      // A card that waits and leaves the timeline (past CARDS_PER_SESSION) is not counted either.
      await session.callTool('bash', { command: 'true', description: 'Ask again' }, { callId: 'left', suspended: () => deadline });
      expect(timeline.awaiting('asking')).toBe(1);
      for (let i = 0; i < CARDS_PER_SESSION; i += 1) await session.callTool('job_list', {});
      expect(timeline.card('asking', 'left')).toBeUndefined();
      expect(timeline.awaiting('asking')).toBe(0);
    } finally {
      timeline.close();
    }
  });
});
