// Waiting detection on real processes: a prompt read on a test PTY ends the foreground wait early with the finding;
// an accept() callback server is named with its address in job_list; a sleep, a pipeline on its own producer and a
// busy process are never flagged.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, text, until } from '../helpers/calls.js';
import { acceptServer, onPty } from '../helpers/waiting.js';
import { runtimes } from '../helpers/runtimes.js';
import { processesWith } from '../helpers/processes.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-waiting-')));


describe('waiting detection', () => {
  it('ends the wait of a prompt on a terminal early, says why, and promises no notice', async () => {
    const runtime = await open();
    const s = runtime.session({ id: 'prompt', cwd: work });
    const started = Date.now();
    const result = await bash(s, onPty('read -p "Name? " name; echo "$name" > answered-7731'), { timeoutMs: 120_000 });
    expect(Date.now() - started).toBeLessThan(60_000);
    const match =
      /^\[waiting for input: pid (\d+) \(bash\) reads a terminal; this tool cannot type into it — job_kill it and rerun non-interactively\]\n\[still running after (\d+)ms; moved to background job (bash-\d+)\]\nThe command keeps running in the background, waiting as the line above says; read newer output with job_output, stop it with job_kill\.$/.exec(
        text(result),
      );
    expect(match, text(result)).not.toBeNull();
    const [, pid, , id] = match!;
    expect(result.structuredContent).toMatchObject({ kind: 'promoted', jobId: id, waiting: { kind: 'input', source: 'terminal', pid: Number(pid), name: 'bash' } });
    expect(text(await s.callTool('job_list', {}))).toMatch(
      new RegExp(`^${id} \\[bash\\] running — python3 -c .*\\[waiting for input: pid ${pid} \\(bash\\) reads a terminal; this tool cannot type into it — job_kill it and rerun non-interactively\\]$`),
    );
    await s.callTool('job_kill', { job_id: id });
    await until(() => processesWith('answered-7731').length === 0, 15_000, 'the prompt to end');
  });

  it('names an accept() callback server and its address in job_list', async () => {
    const runtime = await open();
    const s = runtime.session({ id: 'accept', cwd: work });
    const { id, port, listed } = await acceptServer(runtime, s);
    expect(listed).toMatch(new RegExp(`^${id} \\[bash\\] running — python3 -c .* \\[waiting: pid \\d+ \\(python3[.\\d]*\\) accepts connections on 127\\.0\\.0\\.1:${port}\\]$`));
    await s.callTool('job_kill', { job_id: id });
  });

  it('flags no sleep, no pipeline waiting on its producer and no busy process', async () => {
    const runtime = await open();
    const run = (id: string, command: string) => bash(runtime.session({ id, cwd: work }), command, { timeoutMs: 120_000 }).then(text);
    const [sleeping, piped, busy] = await Promise.all([
      run('sleep', 'sleep 5'),
      run('pipe', 'sleep 5 | cat'),
      run('busy', "timeout 6 sh -c 'while :; do :; done'"),
    ]);
    expect(sleeping).toBe('(no output)');
    expect(piped).toBe('(no output)');
    expect(busy).toBe('(no output)\n[exit code: 124]');
  });
});
