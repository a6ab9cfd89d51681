// A command that kills its own runner, or the server its runner came from, keeps what it printed: the result carries
// the output and says the supervision ended (never that the command did not run), unconfined and on both sandbox
// backends, in the foreground and as a background job.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RuntimeOptions } from '../../src/index.js';
import { jobTexts, markers } from '../../src/contract/index.js';
import { background, bash, settledJob, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const base = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-killed-runner-')));

const CONFIGS: [string, RuntimeOptions][] = [
  ['unconfined', {}],
  ['landlock', { sandbox: { backend: 'landlock', mode: 'workspace-write' } }],
  ['bubblewrap', { sandbox: { backend: 'bubblewrap', mode: 'workspace-write' } }],
];

/** Kills the command's runner (its parent; under bubblewrap's session sandbox too), after printing. */
const KILLS_RUNNER = 'echo before; echo err >&2; kill -9 $PPID; sleep 2; echo after';
/** Kills the server that forked the command's runner (the runner's parent), after printing: the runner lives on where
 * it can (its lifeline is the worker's), or goes with the sandbox the server held. */
const KILLS_SERVER = `echo before; kill -9 $(cut -d' ' -f4 /proc/$PPID/stat) 2>/dev/null; sleep 0.5; echo after`;

describe.each(CONFIGS)('a command that kills its own supervision (%s)', (name, options) => {
  const cwd = join(base, name);
  mkdirSync(cwd, { recursive: true });

  it('keeps its output and says the supervision ended', async () => {
    const runtime = await open(options);
    const result = await bash(runtime.session({ id: `${name}-runner`, cwd }), KILLS_RUNNER);
    const body = text(result);
    // A runner a Landlock command cannot signal (its domain scopes signals) supervises it to the end.
    if (body.includes('Operation not permitted')) {
      expect(body).toMatch(/^before\nafter\n\[stderr\]\nerr\n.*Operation not permitted\n$/s);
      return;
    }
    expect(result.isError ?? false).toBe(false);
    expect(body).toBe(`before\n[stderr]\nerr\n${markers.supervisionEnded}`);
    expect(result.structuredContent).toMatchObject({ exitCode: null, signal: null });
    expect(body).not.toContain('did not run');
  });

  it('as a job: its output reads back, and its status says the supervision ended', async () => {
    const runtime = await open(options);
    const session = runtime.session({ id: `${name}-job`, cwd });
    const id = await background(session, KILLS_RUNNER);
    await settledJob(runtime, id, 30_000);
    const read = text(await session.callTool('job_output', { job_id: id }));
    if (read.includes('Operation not permitted')) return;
    expect(read).toBe(`before\n[stderr]\nerr\n[status: failed, ${jobTexts.supervisionEnded}]`);
  });

  it('killing the server its runner came from keeps what it printed', async () => {
    const runtime = await open(options);
    const result = await bash(runtime.session({ id: `${name}-server`, cwd }), KILLS_SERVER);
    const body = text(result);
    expect(result.isError ?? false).toBe(false);
    expect(body.startsWith('before\n')).toBe(true);
    expect([`before\nafter\n`, `before\n${markers.supervisionEnded}`]).toContain(body);
  });
});
