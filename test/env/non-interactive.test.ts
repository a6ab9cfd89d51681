// Non-interactive by default: an inherited editor, pager or password prompt never waits for a keyboard; the
// stand-ins print one exact line and exit 1, also inside both sandboxes; the environment policy can override each.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { processesWith } from '../helpers/processes.js';
import { environmentTexts } from '../../src/contract/index.js';
import { NO_ASKPASS, NO_EDITOR } from '../../src/env/non-interactive.js';

const open = runtimes();
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-noninteractive-')));
const saved = { EDITOR: process.env.EDITOR, VISUAL: process.env.VISUAL, PAGER: process.env.PAGER };

beforeAll(() => {
  // The host's own settings, as a developer's shell would have them: the commands must not inherit them.
  process.env.EDITOR = 'vim';
  process.env.VISUAL = 'vim';
  process.env.PAGER = 'less';
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('the non-interactive environment', () => {
  it('ends `git commit` with EDITOR=vim inherited at once, with the editor line, leaving nothing running', async () => {
    const runtime = await open();
    const s = runtime.session({ id: 'editor', cwd: work });
    const started = Date.now();
    const result = await bash(
      s,
      'git init -q repo && cd repo && git config user.email t@example.com && git config user.name t && echo a > a && git add a && git commit -q',
      { timeoutMs: 10_000 },
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    // git's own lines after the stand-in's vary between git versions; the stand-in's line and the status do not.
    expect(text(result)).toMatch(new RegExp(`^\\[stderr\\]\\n${escapeRegExp(environmentTexts.noEditor)}\\nerror: [Tt]here was a problem with the editor '${escapeRegExp(NO_EDITOR)}'.*\\n[^]*\\[exit code: 1\\]$`));
    expect(processesWith('vim')).toEqual([]);
    expect(runtime.jobs!.list(s.id)).toEqual([]);
  });

  it('keeps git\'s automatic maintenance in the command that started it, never detached to outlive it', async () => {
    const runtime = await open();
    const s = runtime.session({ id: 'maintenance', cwd: work });
    // GIT_TRACE shows how `git commit` starts its maintenance: detached, it would outlive the call (a loaded host runs
    // it well after the commit) and be named as a process the command left running.
    const result = await bash(
      s,
      'git init -q kept && cd kept && GIT_TRACE=1 git -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m one 2>&1 | grep -o "maintenance run --auto --quiet --[a-z-]*detach" | sort -u',
    );
    expect(text(result)).toBe('maintenance run --auto --quiet --no-detach\n');
  });

  it('sets each variable, and the environment policy overrides any of them', async () => {
    const runtime = await open({ executor: { env: { set: { EDITOR: 'true', PAGER: 'more' } } } });
    const s = runtime.session({ id: 'vars', cwd: work });
    const names = ['GIT_EDITOR', 'EDITOR', 'VISUAL', 'SUDO_ASKPASS', 'SSH_ASKPASS', 'SSH_ASKPASS_REQUIRE', 'GIT_ASKPASS', 'GIT_TERMINAL_PROMPT',
      'GIT_MERGE_AUTOEDIT', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0', 'GIT_CONFIG_KEY_1', 'GIT_CONFIG_VALUE_1', 'GCM_INTERACTIVE', 'PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'DEBIAN_FRONTEND',
      'APT_LISTCHANGES_FRONTEND', 'PIP_NO_INPUT', 'GH_PROMPT_DISABLED', 'TF_INPUT'];
    const result = await bash(s, names.map((name) => `echo ${name}=$${name}`).join('; '));
    expect(text(result)).toBe(
      [
        `GIT_EDITOR=${NO_EDITOR}`, 'EDITOR=true', `VISUAL=${NO_EDITOR}`, `SUDO_ASKPASS=${NO_ASKPASS}`, `SSH_ASKPASS=${NO_ASKPASS}`,
        'SSH_ASKPASS_REQUIRE=force', `GIT_ASKPASS=${NO_ASKPASS}`, 'GIT_TERMINAL_PROMPT=0', 'GIT_MERGE_AUTOEDIT=no',
        'GIT_CONFIG_COUNT=2', 'GIT_CONFIG_KEY_0=maintenance.autoDetach', 'GIT_CONFIG_VALUE_0=false', 'GIT_CONFIG_KEY_1=gc.autoDetach',
        'GIT_CONFIG_VALUE_1=false', 'GCM_INTERACTIVE=never', 'PAGER=more', 'GIT_PAGER=cat', 'MANPAGER=cat', 'SYSTEMD_PAGER=cat',
        'DEBIAN_FRONTEND=noninteractive', 'APT_LISTCHANGES_FRONTEND=none', 'PIP_NO_INPUT=1', 'GH_PROMPT_DISABLED=1', 'TF_INPUT=0', '',
      ].join('\n'),
    );
  });

  it('the stand-ins print exactly the contract lines and exit 1', () => {
    for (const [file, line] of [[NO_EDITOR, environmentTexts.noEditor], [NO_ASKPASS, environmentTexts.noAskpass]] as const) {
      let failure: { status: number; stderr: string } | undefined;
      try {
        execFileSync(file, ['some-file'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (error) {
        failure = error as { status: number; stderr: string };
      }
      expect(failure).toMatchObject({ status: 1, stderr: `${line}\n` });
    }
  });

  it.each(['landlock', 'bubblewrap'] as const)('reach the stand-in under the %s sandbox', async (backend) => {
    const runtime = await open({ sandbox: { backend, mode: 'read-only' } });
    const s = runtime.session({ id: `sandboxed-${backend}`, cwd: work });
    const result = await bash(s, '"$EDITOR" notes.txt; "$SUDO_ASKPASS" "Password:"');
    expect(text(result)).toBe(`[stderr]\n${environmentTexts.noEditor}\n${environmentTexts.noAskpass}\n[exit code: 1]`);
  });
});
