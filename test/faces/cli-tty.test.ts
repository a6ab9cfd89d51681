// `shellring run --tty` at a real terminal (a pseudo-terminal driven as a person would): the command gets this
// terminal's size and follows its resizes, keystrokes reach it as typed, and the exit status is the command's own.
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runOnTerminal } from '../../src/cli/run-tty.js';
import { runtimes } from '../helpers/runtimes.js';
import { until } from '../helpers/until.js';
import { cli, repo, workdir } from './helpers.js';

const work = workdir('cli-tty');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const DRIVE = join(repo, 'test/helpers/pty-drive.py');
const open = runtimes();

type Step = ['wait' | 'type', string] | ['resize', number, number] | ['signal', string];

/** `shellring run --tty <flags> -- <command>` on a COLS×ROWS terminal, following `steps`. */
function atTerminal(command: string, steps: Step[], [cols, rows] = [120, 40], flags: string[] = []): { shown: string; met: boolean[]; exit: number } {
  const out = execFileSync('python3', [DRIVE, String(cols), String(rows), JSON.stringify(steps), process.execPath, cli, 'run', '--tty', '--cwd', work, ...flags, '--', command], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(out) as { shown: string; met: boolean[]; exit: number };
}

describe('shellring run --tty', () => {
  it('gives the command this terminal, its size and its resizes, and exits with the command’s status', () => {
    const ask = 'import shutil; print(shutil.get_terminal_size())\r';
    const run = atTerminal('python3 -i', [
      ['wait', '>>> '],
      ['type', ask],
      ['wait', 'columns=120, lines=40'],
      ['resize', 100, 30],
      // The program learns the new size from its terminal (SIGWINCH there), not from this process.
      ['type', ask],
      ['wait', 'columns=100, lines=30'],
      ['type', 'exit(7)\r'],
    ]);
    expect(run.met, run.shown).toEqual([true, true, true]);
    expect(run.exit).toBe(7);
  });

  it('sends ctrl-c to the program as the byte it is (its terminal makes it SIGINT), and a password prompt gets no echo', () => {
    const interrupted = atTerminal('echo ready; sleep 100', [['wait', 'ready'], ['type', '\u0003']]);
    expect(interrupted.met).toEqual([true]);
    expect(interrupted.exit).toBe(130);
    const secret = atTerminal('read -s -p "password: " p; echo; echo "got ${#p} characters"', [['wait', 'password: '], ['type', 'hunter2\r'], ['wait', 'got 7 characters']]);
    expect(secret.met).toEqual([true, true]);
    expect(secret.shown).not.toContain('hunter2');
    expect(secret.exit).toBe(0);
  });

  it('edits a file in vim through keys, and SIGTERM to this process ends the command', () => {
    const edited = atTerminal('vim -Nu NONE notes.txt', [['wait', 'notes.txt'], ['type', 'ihello from the terminal\u001b:wq\r']]);
    expect(edited.exit).toBe(0);
    expect(execFileSync('cat', [join(work, 'notes.txt')], { encoding: 'utf8' })).toBe('hello from the terminal\n');
    const ended = atTerminal('echo ready; sleep 100', [['wait', 'ready'], ['signal', 'SIGTERM']]);
    expect(ended.met).toEqual([true]);
    expect(ended.exit).toBe(143);
  });

  it('refuses --timeout with --tty: the command runs until it ends or is ended', () => {
    const result = spawnSync(process.execPath, [cli, 'run', '--tty', '--timeout', '5', '--', 'true'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^shellring run: --timeout does not apply to --tty: the command runs until it ends or is ended\n/);
  });
});

describe('runOnTerminal', { timeout: 120_000 }, () => {
  it('gives the program its new size before the keystrokes typed after a resize, even when the resize event comes later', async () => {
    const runtime = await open({ enableRunInBackground: true });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let shown = '';
    stdout.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    let size = { cols: 120, rows: 40 };
    const exit = runOnTerminal(runtime, runtime.session({ id: 'tty-resize', cwd: work }), 'stty size; echo ready; read line; stty size', 'resize then type', {
      stdin,
      stdout,
      stderr: new PassThrough(),
      size: () => size,
      // The terminal's resize event has not come yet when the keystrokes are read.
      onResize: () => () => {},
    });
    await until(() => shown.includes('ready'), 60_000, 'ready');
    size = { cols: 100, rows: 30 };
    stdin.write('go\r');
    expect(await exit, shown).toBe(0);
    expect(shown.match(/^\d+ \d+\r?$/gm)).toEqual(['40 120\r', '30 100\r']);
  });
});

