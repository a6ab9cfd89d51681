// Zero loss under load: 100 sessions x 4 concurrent commands of 1–10 MiB, each ending with a marker line; every
// spill file and every tail is checked byte for byte against what the command printed, and the tails again without
// spill files. Confined, each session in a sandbox of its own, with streams a tenth as long (100 KiB–1 MiB, still
// spilled), per backend.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/index.js';
import { bash, text } from '../helpers/calls.js';

const MiB = 1024 * 1024;
const SESSIONS = 100;
const COMMANDS = 4;
const TAIL = 64_000;
/** Every line is this long, so a line count gives an exact size. */
const LINE = 128;
const PAD = 'x'.repeat(LINE - 21);
const MARKER = '[output truncated; full output: ';

const opened: Runtime[] = [];
afterAll(async () => {
  await Promise.all(opened.map((runtime) => runtime.close()));
});

/** A deterministic size in [1 MiB, 10 MiB] (divided by `scale`), in whole lines. */
function linesFor(session: number, command: number, scale: number): number {
  const x = Math.imul(session * 7 + command + 1, 2654435761) >>> 0;
  return Math.floor((MiB + (x % (9 * MiB))) / scale / LINE);
}

function tag(session: number, command: number): string {
  return `s${String(session).padStart(3, '0')}c${command}`;
}

/** What the command prints: numbered lines, then its marker line. */
function expected(session: number, command: number, scale: number): Buffer {
  const t = tag(session, command);
  const lines = linesFor(session, command, scale);
  const out = Buffer.allocUnsafe(lines * LINE + t.length + 5);
  let at = 0;
  for (let i = 0; i < lines; i++) {
    at += out.write(`${t} ${String(i).padStart(12, '0')} ${PAD}\n`, at, 'latin1');
  }
  at += out.write(`END-${t}\n`, at, 'latin1');
  return out.subarray(0, at);
}

/** The kept tail: the last TAIL bytes from the first line start among their first 4 KiB (crates/core/README.md);
 * the lines here are ASCII and 128 bytes long, so there always is one. */
function keptTail(want: Buffer): Buffer {
  const window = want.subarray(want.length - TAIL);
  return window.subarray(window.subarray(0, 4096).indexOf(0x0a) + 1);
}

function command(session: number, command: number, scale: number): string {
  const t = tag(session, command);
  return `seq -f '${t} %012g ${PAD}' 0 ${linesFor(session, command, scale) - 1}; echo END-${t}`;
}

/** 100 sessions x 4 concurrent streams, each checked byte for byte; `workspaces` gives each session its own. */
async function zeroLoss(options: RuntimeOptions, scale: number, workspaces?: string): Promise<void> {
  const runtime = await createRuntime(options);
  opened.push(runtime);
  const calls: Promise<{ session: number; command: number; out: string }>[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    const cwd = workspaces && join(workspaces, `s${s}`);
    if (cwd) mkdirSync(cwd);
    const session = runtime.session({ id: `zero-loss-${s}`, ...(cwd ? { cwd } : {}) });
    for (let c = 0; c < COMMANDS; c++) {
      calls.push(bash(session, command(s, c, scale)).then((result) => ({ session: s, command: c, out: text(result) })));
    }
  }
  const results = await Promise.all(calls);
  let checked = 0;
  for (const { session, command, out } of results) {
    const want = expected(session, command, scale);
    const cut = out.lastIndexOf(MARKER);
    expect(cut, `${tag(session, command)}: ${out.slice(-300)}`).toBeGreaterThan(0);
    // The result ends with the marker naming the spill file; exit code 0 adds no line.
    const path = out.slice(cut + MARKER.length, out.indexOf(']', cut));
    const tail = out.slice(0, cut);
    const kept = keptTail(want);
    expect(tail.length, tag(session, command)).toBe(kept.length);
    expect(Buffer.from(tail, 'latin1').equals(kept), `${tag(session, command)} tail`).toBe(true);
    if (options.executor?.maxSpillBytes === 0) {
      expect(path, tag(session, command)).toBe('(unavailable)');
      checked += 1;
      continue;
    }
    const file = readFileSync(path);
    expect(file.length, `${tag(session, command)} spill size`).toBe(want.length);
    expect(file.equals(want), `${tag(session, command)} spill bytes`).toBe(true);
    rmSync(path);
    checked += 1;
  }
  expect(checked).toBe(SESSIONS * COMMANDS);
}

describe('zero loss under load', () => {
  it('keeps every byte of 400 concurrent 1–10 MiB streams in their spill files and tails', () => zeroLoss({}, 1), 120_000);

  // Without spill files the newest bytes of each pipeful wait in a holding pipe until the call ends.
  it('keeps the exact tails of 400 concurrent 1–10 MiB streams without spill files', () =>
    zeroLoss({ executor: { maxSpillBytes: 0 } }, 1), 120_000);

  it.each(['landlock', 'bubblewrap'] as const)(
    'keeps every byte of 400 concurrent confined streams, 100 session sandboxes at once (%s)',
    (backend) => {
      const workspaces = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-zero-loss-')));
      return zeroLoss({ sandbox: { mode: 'workspace-write', backend } }, 10, workspaces).finally(() =>
        rmSync(workspaces, { recursive: true, force: true }),
      );
    },
    240_000,
  );
});
