// Terminal jobs end to end, through the tools as a model calls them: real programs on the pseudo-terminal the runner
// opens (a REPL, a password prompt, a full-screen editor, a program that asks where the cursor is), the input the
// model types and the reply it reads, and the refusals and interrupts around them; locally, confined, and on a remote
// host, whose runner opens the terminal and takes its lines as the local one does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime, Session } from '../../src/index.js';
import { bash, jobIdOf, settledJob, text, until } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { startSshd, type Sshd } from '../../bench/lib/sshd.js';

const open = runtimes();
const base = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-tty-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let runtime: Runtime;
let serial = 0;

async function session(): Promise<Session> {
  runtime ??= await open();
  return runtime.session({ id: `tty-${++serial}`, cwd: base });
}

async function terminalJob(s: Session, command: string): Promise<string> {
  const result = await bash(s, command, { run_in_background: true, tty: true });
  expect(result.isError, text(result)).toBeFalsy();
  return jobIdOf(result);
}

const type = (s: Session, job_id: string, args: Record<string, unknown>) => s.callTool('job_input', { job_id, ...args });

/** Reads the job (job_output) until its text holds `what`; returns everything read. */
async function readUntil(s: Session, id: string, what: string | RegExp, timeoutMs = 60_000): Promise<string> {
  let seen = '';
  const found = () => (typeof what === 'string' ? seen.includes(what) : what.test(seen));
  await until(
    async () => {
      seen += `${text(await s.callTool('job_output', { job_id: id }))}\n`;
      return found();
    },
    timeoutMs,
    `${JSON.stringify(String(what))} from ${id}`,
  ).catch((error: Error) => {
    // What the job showed instead, without the reads that found nothing new.
    throw new Error(`${error.message}; it read: ${JSON.stringify(seen.replaceAll('(no new output)\n[status: running]\n', '').slice(-2000))}`);
  });
  return seen;
}

describe('terminal jobs', { timeout: 120_000 }, () => {
  it('round-trips python3 -i: the reply without the echo of what was typed', async () => {
    const s = await session();
    const id = await terminalJob(s, 'python3 -i -q');
    await readUntil(s, id, '>>> ');
    const reply = text(await type(s, id, { text: 'print(6*7)\n' }));
    expect(reply).toContain('42');
    expect(reply).not.toContain('print(6*7)');
    expect(reply).not.toMatch(/\x1b|\r/);
    expect(reply.split('\n').at(-1)).toBe('[status: running]');
    const done = text(await type(s, id, { eof: true }));
    await settledJob(runtime, id);
    expect(done + text(await s.callTool('job_output', { job_id: id }))).toMatch(/exit code: 0/);
  });

  it('shows what a person typed (the console path) at the head of the model’s next read, then what followed', async () => {
    const s = await session();
    const id = await terminalJob(s, 'python3 -i -q');
    await readUntil(s, id, '>>> ');
    expect(runtime.jobs!.input(id, Buffer.from('print(6*9)\r'))).toBe(true);
    const read = await readUntil(s, id, '54');
    expect(read).toContain('[a person typed into this terminal: "print(6*9)\\r"]\n');
    expect(read.indexOf('[a person typed')).toBeLessThan(read.indexOf('54'));
    // Told once: the reads after it do not repeat it.
    expect(text(await type(s, id, { text: 'print(1+1)\n' }))).not.toContain('a person typed');
    await type(s, id, { eof: true });
    await settledJob(runtime, id);
  });

  it('says in job_output, before the status line, when a terminal job waits on its terminal, as job_list does', async () => {
    const s = await session();
    const id = await terminalJob(s, 'python3 -i -q');
    const line = /\[waiting for input: pid \d+ \(python3[^)]*\) reads its terminal; answer it with job_input\]\n\[status: running\]$/;
    const read = await until(async () => {
      const shown = text(await s.callTool('job_output', { job_id: id }));
      return line.test(shown) ? shown : undefined;
    }, 60_000, 'the waiting line in job_output');
    expect(read).toMatch(line);
    expect(text(await s.callTool('job_list'))).toMatch(/\[waiting for input: pid \d+ \(python3[^)]*\) reads its terminal; answer it with job_input\]/);
    await type(s, id, { eof: true });
    await settledJob(runtime, id);
  });

  it('answers a password prompt (read -s): the secret reaches the program and is not echoed', async () => {
    const s = await session();
    const id = await terminalJob(s, 'read -s -p "Password: " pw; echo; echo "length ${#pw}"; [ -t 0 ] && echo on-a-terminal');
    await readUntil(s, id, 'Password: ');
    const reply = text(await type(s, id, { text: 'hunter22', keys: ['enter'] }));
    const all = reply.includes('on-a-terminal') ? reply : reply + (await readUntil(s, id, 'on-a-terminal'));
    expect(all).toContain('length 8');
    expect(all).not.toContain('hunter22');
  });

  it('round-trips the node REPL on its terminal (line editing, colours and previews on)', async () => {
    const s = await session();
    const id = await terminalJob(s, `'${process.execPath}'`);
    await readUntil(s, id, /^> /m);
    const reply = text(await type(s, id, { text: '[6 * 7, "node"].join(" from ")\n' }));
    const all = reply.includes("'42 from node'") ? reply : reply + (await readUntil(s, id, "'42 from node'"));
    expect(all).toContain("'42 from node'");
    expect(all).not.toMatch(/\x1b|\r/);
    await type(s, id, { text: '.exit\n' });
    await settledJob(runtime, id);
  });

  it('answers npm init question by question and writes the package.json those answers make', async () => {
    const s = await session();
    const dir = mkdtempSync(join(base, 'npm-init-'));
    const id = await terminalJob(s, `cd '${dir}' && npm_config_update_notifier=false npm init`);
    await readUntil(s, id, 'package name:');
    const answers: Record<string, string> = { 'package name:': 'answered-demo', 'version:': '0.3.0', 'description:': 'typed in a terminal job', 'license:': 'MIT' };
    let asked = (await type(s, id, { text: 'answered-demo\n' })).content[0]!.text;
    for (let turn = 0; turn < 20 && !/Is this OK\?/.test(asked); turn++) {
      // The last question in the reply decides the answer; an unlisted one takes its default (Enter).
      const question = [...asked.matchAll(/([a-z ]+:)(?: \([^)]*\))? *$/gm)].at(-1)?.[1]?.trim() ?? '';
      asked = (await type(s, id, { text: `${answers[question] ?? ''}\n` })).content[0]!.text;
    }
    expect(asked).toMatch(/Is this OK\?/);
    await type(s, id, { text: 'yes\n' });
    await settledJob(runtime, id);
    const written = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(written).toMatchObject({ name: 'answered-demo', version: '0.3.0', description: 'typed in a terminal job', license: 'MIT' });
  });

  it('edits and saves a file in vim -Nu NONE through keys; the alternate screen is rendered meanwhile', async () => {
    const s = await session();
    const file = join(base, `edited-${serial}.txt`);
    writeFileSync(file, 'first line\n');
    const id = await terminalJob(s, `vim -Nu NONE ${file}`);
    const screen = await until(async () => {
      const read = text(await s.callTool('job_output', { job_id: id }));
      return /\[screen 80x24, cursor at row \d+, column \d+\]/.test(read) && read.includes('first line') ? read : undefined;
    }, 20_000, 'vim to draw its screen');
    expect(screen).toContain('[end of screen]');
    // Text is typed before keys: `G` to the last line, `o` opens a line below it in insert mode.
    await type(s, id, { text: 'Go' });
    await type(s, id, { text: 'added by keys', keys: ['esc'] });
    await type(s, id, { text: ':wq', keys: ['enter'] });
    await settledJob(runtime, id);
    expect(readFileSync(file, 'utf8')).toBe('first line\nadded by keys\n');
  });

  it('starts a program that asks for the cursor position and waits for the answer', async () => {
    const s = await session();
    // Without a reply to ESC[6n, the read times out after 15 s and the program says so.
    const script = [
      'import os, sys, termios, tty, select',
      'fd = sys.stdin.fileno(); old = termios.tcgetattr(fd); tty.setraw(fd)',
      "os.write(1, b'\\x1b[6n'); reply = b''",
      "while not reply.endswith(b'R') and select.select([fd], [], [], 15)[0]: reply += os.read(fd, 32)",
      'termios.tcsetattr(fd, termios.TCSADRAIN, old)',
      "print('cursor', reply[2:].decode() if reply else 'none')",
    ].join('\n');
    writeFileSync(join(base, 'cpr.py'), script);
    const id = await terminalJob(s, `python3 ${join(base, 'cpr.py')}`);
    const read = await readUntil(s, id, /cursor \S+/);
    expect(read).toMatch(/cursor 1;1R/);
  });

  it('refuses a 5,000-byte line before typing anything', async () => {
    const s = await session();
    const id = await terminalJob(s, 'cat');
    const refused = await type(s, id, { text: `${'x'.repeat(5000)}\n` });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      'Error: a line of 5000 bytes is longer than a terminal takes (4095 bytes): nothing was typed; write the input to a file and give the program the file instead',
    );
    const fits = text(await type(s, id, { text: `${'y'.repeat(4095)}\n` }));
    expect(fits).toContain('y'.repeat(4095));
    await s.callTool('job_kill', { job_id: id });
  });

  it('ctrl-c interrupts sleep 100 on a terminal (as a key) and without one (as SIGINT to the group)', async () => {
    const s = await session();
    const onTerminal = await terminalJob(s, 'sleep 100');
    await type(s, onTerminal, { keys: ['ctrl-c'] });
    await settledJob(runtime, onTerminal);
    expect(text(await s.callTool('job_output', { job_id: onTerminal }))).toMatch(/signal: SIGINT|exit code: 130/);

    const piped = jobIdOf(await bash(s, 'sleep 100', { run_in_background: true }));
    const typedText = await type(s, piped, { text: 'hello' });
    expect(typedText.isError).toBe(true);
    expect(text(typedText)).toContain(`job ${piped} has no terminal`);
    expect(text(await type(s, piped, { keys: ['ctrl-c'] }))).toContain(`sent an interrupt (SIGINT) to job ${piped}`);
    await settledJob(runtime, piped);
    expect(text(await s.callTool('job_output', { job_id: piped }))).toMatch(/signal: SIGINT|exit code: 130/);
  });

  it('answers input to an ended job with its end status', async () => {
    const s = await session();
    const id = await terminalJob(s, 'exit 3');
    await settledJob(runtime, id);
    expect(text(await type(s, id, { text: 'late\n' }))).toBe(`job ${id} has ended; nothing was typed\n[status: completed, exit code: 3]`);
  });

  it('refuses a terminal job past the session limit, names the limit, and admits one again when a job ends', async () => {
    const limited = await open({ jobs: { maxTerminalJobs: 2 } });
    const s = limited.session({ id: 'tty-limit', cwd: base });
    const first = jobIdOf(await bash(s, 'cat', { run_in_background: true, tty: true }));
    const second = jobIdOf(await bash(s, 'cat', { run_in_background: true, tty: true }));
    const refused = await bash(s, 'cat', { run_in_background: true, tty: true });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      'Error: terminal job limit reached for this session (limit: 2); end a terminal job you no longer need with job_kill, then retry',
    );
    // A job without a terminal is not counted against it.
    const piped = jobIdOf(await bash(s, 'sleep 30', { run_in_background: true }));
    await s.callTool('job_kill', { job_id: first });
    await settledJob(limited, first);
    const third = jobIdOf(await bash(s, 'cat', { run_in_background: true, tty: true }));
    // Its terminals closed, so the descriptor count below starts from none.
    for (const id of [second, piped, third]) {
      await s.callTool('job_kill', { job_id: id });
      await settledJob(limited, id);
    }
  });

  it('refuses unknown keys and empty input', async () => {
    const s = await session();
    const id = await terminalJob(s, 'cat');
    expect(text(await type(s, id, { keys: ['ctrl-q'] }))).toMatch(/^Error: unknown key "ctrl-q": use one of enter, tab, esc/);
    expect(text(await type(s, id, {}))).toBe('Error: job_input needs text, keys or eof: nothing to type');
    await s.callTool('job_kill', { job_id: id });
  });
});

/** Open descriptors on /dev/ptmx (or a devpts's own ptmx) held by this test's process and all its descendants (the
 * fork servers, runners and commands): other work on the machine may open terminals of its own meanwhile. */
function ptmxCount(): number {
  const parent = new Map<number, number>();
  for (const pid of readdirSafe('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  const ours = (pid: number): boolean => {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = parent.get(at)) if (at === process.pid) return true;
    return false;
  };
  let count = 0;
  for (const pid of parent.keys()) {
    if (!ours(pid)) continue;
    for (const fd of readdirSafe(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target === '/dev/ptmx' || target.endsWith('/ptmx')) count += 1;
      } catch {
        // closed meanwhile
      }
    }
  }
  return count;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

describe('terminal descriptors', { timeout: 180_000 }, () => {
  it('200 terminal jobs opened and ended leave the count of open /dev/ptmx descriptors at its baseline', async () => {
    const s = await session();
    // The earlier tests' terminals close as their runners exit: none of this process's tree holds one once they have.
    await until(() => ptmxCount() === 0, 60_000, 'the earlier terminals to close');
    const baseline = 0;
    for (let round = 0; round < 25; round++) {
      const ids = await Promise.all(Array.from({ length: 8 }, () => terminalJob(s, 'echo up; exec cat')));
      for (const id of ids) await readUntil(s, id, 'up');
      // The count sees the terminals while they are open (the runners hold their masters).
      if (round === 0) expect(ptmxCount()).toBeGreaterThanOrEqual(baseline + ids.length);
      for (const id of ids.slice(0, 4)) await type(s, id, { eof: true });
      for (const id of ids.slice(4)) await s.callTool('job_kill', { job_id: id });
      for (const id of ids) await settledJob(runtime, id);
    }
    await until(() => ptmxCount() <= baseline, 10_000, 'the ptmx count to return to its baseline');
    expect(ptmxCount()).toBe(baseline);
  }, 240_000);
});

describe.each(['landlock', 'bubblewrap'] as const)('terminal jobs confined by %s', (backend) => {
  it('run on a terminal opened inside the sandbox: a REPL round trip, ctrl-c and the end', async () => {
    const confined = await open({ sandbox: { mode: 'workspace-write', backend } });
    const s = confined.session({ id: `tty-${backend}`, cwd: base });
    const id = await terminalJob(s, 'tty; python3 -i -q');
    const started = await readUntil(s, id, '>>> ');
    expect(started).toMatch(/^\/dev\/pts\/\d+$/m);
    const reply = text(await type(s, id, { text: 'import os; print(os.isatty(0), 6*7)\n' }));
    expect(reply).toContain('True 42');
    await type(s, id, { keys: ['ctrl-c'] });
    expect(text(await type(s, id, { text: 'print("still here")\n' }))).toContain('still here');
    await type(s, id, { eof: true });
    await until(() => confined.jobs!.list().find((job) => job.id === id)?.state === 'completed', 20_000, `${id} to complete`);
    expect(text(await s.callTool('job_output', { job_id: id }))).toMatch(/exit code: 0/);
  });
});

describe('terminal jobs on a remote host', { timeout: 120_000 }, () => {
  let sshd: Sshd;
  let remote: Runtime;
  beforeAll(async () => {
    sshd = await startSshd();
    remote = await open({ executor: { cwd: base, kind: 'ssh', hosts: [sshd.host] } });
  }, 60_000);
  afterAll(async () => {
    await remote?.close();
    await sshd?.stop();
  });

  it('a REPL round trip, ctrl-c as a key and the end, on a terminal the far runner opened', async () => {
    const s = remote.session({ id: 'tty-remote-repl', cwd: base });
    const id = await terminalJob(s, 'tty; python3 -i -q');
    expect(await readUntil(s, id, '>>> ')).toMatch(/^\/dev\/pts\/\d+$/m);
    const reply = text(await type(s, id, { text: 'import os; print(os.isatty(0), 6*7)\n' }));
    expect(reply).toContain('True 42');
    expect(reply).not.toContain('import os');
    await type(s, id, { keys: ['ctrl-c'] });
    expect(text(await type(s, id, { text: 'print("still here")\n' }))).toContain('still here');
    await type(s, id, { eof: true });
    await settledJob(remote, id);
    expect(text(await s.callTool('job_output', { job_id: id }))).toMatch(/exit code: 0/);
  });

  it('vim edits a file through keys while its alternate screen is rendered from the far runner', async () => {
    const s = remote.session({ id: 'tty-remote-vim', cwd: base });
    const file = join(base, 'edited-remote.txt');
    writeFileSync(file, 'first line\n');
    const id = await terminalJob(s, `vim -Nu NONE ${file}`);
    await until(async () => {
      const read = text(await s.callTool('job_output', { job_id: id }));
      return /\[screen 80x24, cursor at row \d+, column \d+\]/.test(read) && read.includes('first line') ? read : undefined;
    }, 20_000, 'vim to draw its screen');
    await type(s, id, { text: 'Go' });
    await type(s, id, { text: 'added by keys', keys: ['esc'] });
    await type(s, id, { text: ':wq', keys: ['enter'] });
    await settledJob(remote, id);
    expect(readFileSync(file, 'utf8')).toBe('first line\nadded by keys\n');
  });

  it('ctrl-c to a job without a terminal is SIGINT to its group there', async () => {
    const s = remote.session({ id: 'tty-remote-piped', cwd: base });
    const piped = jobIdOf(await bash(s, 'sleep 100', { run_in_background: true }));
    expect(text(await type(s, piped, { keys: ['ctrl-c'] }))).toContain(`sent an interrupt (SIGINT) to job ${piped}`);
    await settledJob(remote, piped);
    expect(text(await s.callTool('job_output', { job_id: piped }))).toMatch(/signal: SIGINT|exit code: 130/);
  });
});
