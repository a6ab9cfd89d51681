// The standing sandbox mode reaches the model before any denial: a session's prompt sections end with the mode and
// what a command can write and read, and follow a person's mode change; the fixed sections stay byte-stable.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimes } from '../helpers/runtimes.js';
import { BASH_PROMPT } from '../../src/index.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-context-')));

/** What a session-view command can read, with its own places (the workspace, and $TMPDIR where it writes). */
const readable = (own: string) =>
  `the system (/usr, /bin, /sbin, /lib*, /etc, /opt, /proc, /sys, /dev), ${own}, this session's spill files and the toolchains on PATH; nothing else (other homes, /srv, /tmp, /var and the rest are empty or absent)`;

describe('the sandbox runtime context', () => {
  it('states the mode and the writable places, and follows setSandboxMode', async () => {
    const runtime = await open({ sandbox: { mode: 'read-only' } });
    const s = runtime.session({ id: 'context', cwd: work });
    const fixed = runtime.promptSections();
    expect(s.promptSections().slice(0, fixed.length)).toEqual(fixed);
    expect(fixed[0]).toEqual({ name: 'tool:bash', order: 1000, text: BASH_PROMPT });
    expect(s.promptSections().at(-1)).toEqual({
      name: 'tool:bash:sandbox',
      order: 1_000_000,
      text: `Sandbox mode of this session: read-only (set by a person; it can change between calls).\nCommands can write: nothing (only /dev/null); writing a file is denied.\nCommands can read: ${readable(`${work} and below`)}.`,
    });
    s.setSandboxMode('workspace-write');
    expect(s.promptSections().at(-1)!.text).toBe(
      `Sandbox mode of this session: workspace-write (set by a person; it can change between calls).\nCommands can write: ${work} and below, and $TMPDIR (a private temporary directory).\nCommands can read: ${readable(`${work} and below, $TMPDIR`)}.`,
    );
    s.setSandboxMode('danger-full-access');
    expect(s.promptSections().at(-1)!.text).toBe(
      'Sandbox mode of this session: danger-full-access (set by a person; it can change between calls).\nCommands can write: anywhere this server may write (file writes are not confined).\nCommands can read: anything this server may read (reads are not confined).',
    );
    // Other sessions keep the deployment's mode; the fixed sections never change.
    expect(runtime.session({ id: 'other', cwd: work }).promptSections().at(-1)!.text).toMatch(/^Sandbox mode of this session: read-only /);
    expect(runtime.promptSections()).toEqual(fixed);
  });

  it('adds nothing where commands are not confined', async () => {
    const runtime = await open();
    const s = runtime.session({ id: 'plain', cwd: work });
    expect(s.promptSections()).toEqual(runtime.promptSections());
  });
});
