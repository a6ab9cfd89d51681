// A read outside the session's view is told as the sandbox's doing: which paths the error lines of well-known tools
// name (coreutils, bash, find, Python, Node), judged against the call's plan with no filesystem call; the view's
// system directories held equal to the runner's; the retry offered only where someone can approve it, and only
// danger-full-access, which then reads the file; a background job's read; the prompt's `Commands can read:` line.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeDenials } from '../../src/executor/denials.js';
import { markers, readableSummary, VIEW_KERNEL, VIEW_SYSTEM } from '../../src/contract/index.js';
import { background, bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { workdir } from '../faces/helpers.js';

const open = runtimes();
const work = workdir('read-refusals');
const outside = workdir('read-refusals-outside');

beforeAll(() => writeFileSync(join(outside, 'notes.txt'), 'outside the view\n'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const plan = {
  view: 'session' as const,
  readable: ['/home/dev/project', '/root/.cargo'],
  writable: ['/tmp/shellring-tmp-x/session-1'],
  hidden: ['/tmp/shellring-spill'],
  denied: ['/root/.cargo/credentials.toml', '/home/dev/project/.secrets'],
};

describe('judging error lines against the plan', () => {
  it.each([
    ['cat: /srv/other/notes.txt: No such file or directory', '/srv/other/notes.txt'],
    ["ls: cannot access '/var/lib/dpkg': No such file or directory", '/var/lib/dpkg'],
    ["ls: cannot open directory '/': Permission denied", '/'],
    ['bash: line 1: cd: /home/alice: No such file or directory', '/home/alice'],
    ['bash: line 1: /srv/x/run.sh: Permission denied', '/srv/x/run.sh'],
    ["find: ‘/root/.ssh’: Permission denied", '/root/.ssh'],
    ["head: cannot open '/var/log/syslog' for reading: No such file or directory", '/var/log/syslog'],
    ["FileNotFoundError: [Errno 2] No such file or directory: '/srv/data.csv'", '/srv/data.csv'],
    ["PermissionError: [Errno 13] Permission denied: '/var/lib/x'", '/var/lib/x'],
    ["Error: ENOENT: no such file or directory, open '/srv/app/config.json'", '/srv/app/config.json'],
    ["Error: EACCES: permission denied, scandir '/var/cache/'", '/var/cache'],
    ['grep: /tmp/shellring-spill/session-2/out.log: No such file or directory', '/tmp/shellring-spill/session-2/out.log'],
    ['cat: /home/dev/project/.secrets/key: No such file or directory', '/home/dev/project/.secrets/key'],
  ])('%s', (line, path) => {
    expect(judgeDenials(`${line}\n`, plan, true)).toEqual({ writeDenied: false, unreadable: [path] });
  });

  it('leaves what the view shows, and relative paths, to the command', () => {
    const lines = [
      'cat: /home/dev/project/missing.txt: No such file or directory',
      'cat: missing.txt: No such file or directory',
      'ls: cannot access /usr/share/nothing: No such file or directory',
      'cat: /root/.cargo/env: No such file or directory',
      'cat: /proc/999999/status: No such file or directory',
      'cat: /home/dev/project/.secrets: Is a directory',
    ];
    expect(judgeDenials(lines.join('\n'), plan, true)).toEqual({ writeDenied: false, unreadable: [] });
  });

  it('tells a write the mode denied from a read the view refused, in one output', () => {
    const stderr = "touch: cannot touch '/home/dev/project/out': Read-only file system\ncat: /srv/x: No such file or directory\n";
    expect(judgeDenials(stderr, plan, true)).toEqual({ writeDenied: true, unreadable: ['/srv/x'] });
    // A write denial is told only when the command failed, as before; a refused read whatever its exit.
    expect(judgeDenials(stderr, plan, false)).toEqual({ writeDenied: false, unreadable: ['/srv/x'] });
  });

  it('judges no read where the plan is completed by another host: every denial counts as the mode’s', () => {
    expect(judgeDenials('cat: /srv/x: Permission denied\ncat: /srv/y: No such file or directory\n', undefined, true)).toEqual({ writeDenied: true, unreadable: [] });
  });

  it('reads the host view as every file but the hidden ones, and names each path once, in order', () => {
    const host = { ...plan, view: 'host' as const };
    const stderr = 'cat: /srv/x: No such file or directory\ncat: /tmp/shellring-spill/a: No such file or directory\ncat: /tmp/shellring-spill/a: No such file or directory\n';
    expect(judgeDenials(stderr, host, true)).toEqual({ writeDenied: false, unreadable: ['/tmp/shellring-spill/a'] });
  });

  it('names three paths, then counts the rest', () => {
    expect(markers.unreadable(['/a', '/b', '/c', '/d', '/e'], 'X')).toBe('[sandbox: /a, /b, /c and 2 more are outside what this session can read; it can read X]');
    expect(markers.unreadable(['/a'], 'X')).toBe('[sandbox: /a is outside what this session can read; it can read X]');
  });

  it("shows the system directories the runner's session view shows (crates/runner/src/confine/view.rs)", () => {
    const rust = readFileSync(join(import.meta.dirname, '../../crates/runner/src/confine/view.rs'), 'utf8');
    const system = /pub const SYSTEM: &\[&str\] = &\[([^\]]*)\]/.exec(rust)![1]!;
    expect([...system.matchAll(/"([^"]+)"/g)].map((m) => m[1])).toEqual([...VIEW_SYSTEM]);
    expect(VIEW_KERNEL).toEqual(['/proc', '/sys', '/dev']);
  });
});

describe.each(['bubblewrap', 'landlock'] as const)('a read outside the view under %s', (backend) => {
  const summary = readableSummary('read-only', work, { view: 'session', readAllow: [] });

  it('offers only danger-full-access where someone can approve, and that retry reads the file', async () => {
    const asked: string[] = [];
    const runtime = await open({
      sandbox: { backend, mode: 'read-only' },
      approval: {
        request: async (request) => {
          asked.push(request.reason);
          return 'allowed-once';
        },
      },
    });
    const s = runtime.session({ id: `hint-${backend}`, cwd: work });
    const command = `cat ${outside}/notes.txt`;
    expect(text(await bash(s, command))).toBe(
      `[stderr]\ncat: ${outside}/notes.txt: No such file or directory\n${markers.unreadable([`${outside}/notes.txt`], summary)}\n${markers.readEscalationHint}\n[exit code: 1]`,
    );
    const escalated = await bash(s, command, { sandbox_permissions: 'danger-full-access', justification: 'the task reads this file' });
    expect(text(escalated)).toBe('outside the view\n');
    expect(asked).toEqual(['escalate sandbox to danger-full-access: the task reads this file']);
  });

  it("tells a background job's read the same, without a retry where nobody can approve", async () => {
    const runtime = await open({ sandbox: { backend, mode: 'read-only' } });
    const s = runtime.session({ id: `job-${backend}`, cwd: work });
    const id = await background(s, `cat ${outside}/notes.txt`);
    expect(text(await s.callTool('job_output', { job_id: id, wait: true }))).toBe(
      `[stderr]\ncat: ${outside}/notes.txt: No such file or directory\n${markers.unreadable([`${outside}/notes.txt`], summary)}\n[status: completed, exit code: 1]`,
    );
  });

  it('says what the session can read in its prompt, as configured', async () => {
    mkdirSync(join(work, 'shared'), { recursive: true });
    const runtime = await open({ sandbox: { backend, mode: 'workspace-write', readAllow: [join(work, 'shared')] } });
    const s = runtime.session({ id: `prompt-${backend}`, cwd: work });
    expect(s.promptSections().at(-1)!.text).toBe(
      [
        'Sandbox mode of this session: workspace-write (set by a person; it can change between calls).',
        `Commands can write: ${work} and below, and $TMPDIR (a private temporary directory).`,
        `Commands can read: the system (/usr, /bin, /sbin, /lib*, /etc, /opt, /proc, /sys, /dev), ${work} and below, $TMPDIR, ${join(work, 'shared')}, this session's spill files and the toolchains on PATH; nothing else (other homes, /srv, /tmp, /var and the rest are empty or absent).`,
      ].join('\n'),
    );
    const host = await open({ sandbox: { backend, mode: 'read-only', read: 'host' } });
    expect(host.session({ id: `host-${backend}`, cwd: work }).promptSections().at(-1)!.text.split('\n')[2]).toBe(
      "Commands can read: every file this server may read, but other sessions' files and the credential stores the sandbox masks.",
    );
    s.setSandboxMode('danger-full-access');
    expect(s.promptSections().at(-1)!.text.split('\n')[2]).toBe('Commands can read: anything this server may read (reads are not confined).');
  });
});
