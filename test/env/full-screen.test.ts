// Full-screen programs called by name end at once with one exact line saying why and what to run instead (no
// terminal to draw on, so they would wait until the timeout), inside both sandboxes too; called in a way that needs
// no screen (batch mode, --version) they run as themselves, and pagers print as they do without a terminal.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { workdir } from '../faces/helpers.js';
import { environmentTexts, FULL_SCREEN } from '../../src/contract/index.js';
import { FULL_SCREEN_DIR } from '../../src/env/non-interactive.js';

const open = runtimes();
const work = workdir('full-screen');
const script = join(FULL_SCREEN_DIR, '..', 'shellring-full-screen');

beforeAll(() => writeFileSync(join(work, 'notes.txt'), 'hello\n'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs a stand-in directly, with no terminal (pipes), and its exit status and stderr. */
function runStub(name: string, args: string[]): Promise<{ status: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(join(FULL_SCREEN_DIR, name), args, { encoding: 'utf8' }, (error, _stdout, stderr) => {
      resolve({ status: error ? Number(error.code) : 0, stderr });
    });
  });
}

describe('the full-screen stand-ins', () => {
  it('are exactly the programs the contract names, each worded there', () => {
    expect(readdirSync(FULL_SCREEN_DIR).sort()).toEqual(Object.keys(FULL_SCREEN).sort());
    const source = readFileSync(script, 'utf8');
    for (const name of Object.keys(FULL_SCREEN)) expect(source).toContain(environmentTexts.fullScreen(name).replace(name, '$name'));
  });

  it.each(Object.keys(FULL_SCREEN))('%s prints its contract line and exits 1 without a terminal', async (name) => {
    expect(await runStub(name, ['notes.txt'])).toEqual({ status: 1, stderr: `${environmentTexts.fullScreen(name)}\n` });
  });

  it('come first on every command, ending at once through the bash tool', async () => {
    const runtime = await open({ executor: { env: { set: { PATH: '/usr/bin:/bin' } } } });
    const s = runtime.session({ id: 'called', cwd: work });
    expect(text(await bash(s, 'echo "$PATH"'))).toBe(`${FULL_SCREEN_DIR}:/usr/bin:/bin\n`);
    for (const command of ['vi notes.txt', 'top', 'watch date']) {
      const name = command.split(' ')[0]!;
      expect(text(await bash(s, command, { timeoutMs: 60_000 }))).toBe(`[stderr]\n${environmentTexts.fullScreen(name)}\n[exit code: 1]`);
    }
  });

  it('run the real program where it needs no screen; pagers print without a terminal', async () => {
    const runtime = await open();
    const s = runtime.session({ id: 'batch', cwd: work });
    expect(text(await bash(s, 'top -b -n 1 | head -c 6'))).toBe('top - ');
    expect(text(await bash(s, 'vim --version | head -c 3'))).toBe('VIM');
    expect(text(await bash(s, "vim -es -c '%s/hello/bye/' -c wq notes.txt && cat notes.txt"))).toBe('bye\n');
    expect(text(await bash(s, 'less notes.txt; more notes.txt | tail -1'))).toBe('bye\nbye\n');
  });

  it.each(['bubblewrap', 'landlock'] as const)('reach the stand-ins under the %s sandbox', async (backend) => {
    const runtime = await open({ sandbox: { backend, mode: 'read-only' } });
    const s = runtime.session({ id: `sandboxed-${backend}`, cwd: work });
    expect(text(await bash(s, 'vim notes.txt'))).toBe(`[stderr]\n${environmentTexts.fullScreen('vim')}\n[exit code: 1]`);
  });
});
