// The variables that keep a command from waiting on a keyboard nobody holds: editors and password prompts that
// fail at once with a line saying what to do, pagers that print, installers and credential helpers that never ask.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The helpers ship with the package as plain `#!/bin/sh` scripts under dist/src/env/bin: a sandbox that shows
 * the host's / read-only (bubblewrap's --ro-bind, Landlock's read rules) shows them too, and a path without spaces
 * works both for programs that run `$EDITOR` through a shell (git, crontab) and for those that exec it directly. */
export const NO_EDITOR = fileURLToPath(new URL('./bin/shellring-no-editor', import.meta.url));
export const NO_ASKPASS = fileURLToPath(new URL('./bin/shellring-no-askpass', import.meta.url));
/** Their directory: a session's read view shows it (read-only) beside the system. */
export const STAND_INS = dirname(NO_EDITOR);
/** Stand-ins for the full-screen programs a command may call by name (vi, top, ...), first on every command's PATH:
 * without a terminal each fails at once with what to run instead, and runs the real program when called in a way
 * that needs no screen (see bin/shellring-full-screen). Pagers are not among them: they print when there is no
 * terminal. */
export const FULL_SCREEN_DIR = join(STAND_INS, 'full-screen');

/** `path` with the full-screen stand-ins first; an empty or absent PATH is left alone (an empty entry would name
 * the working directory). */
export function withStandIns(path: string | undefined): string | undefined {
  return path ? `${FULL_SCREEN_DIR}:${path}` : path;
}

/**
 * Set for every command before the environment policy's `set`, the trusted env and DSH_*, so each is overridable.
 * None of them makes a tool act without asking (no `--yes` equivalents such as npx's auto-install): they only turn
 * a question that would hang into a failure or the tool's own default.
 */
export const NON_INTERACTIVE: Readonly<Record<string, string>> = Object.freeze({
  GIT_EDITOR: NO_EDITOR,
  EDITOR: NO_EDITOR,
  VISUAL: NO_EDITOR,
  SUDO_ASKPASS: NO_ASKPASS,
  SSH_ASKPASS: NO_ASKPASS,
  // ssh asks through SSH_ASKPASS even where it finds a terminal, so it never reads a keyboard.
  SSH_ASKPASS_REQUIRE: 'force',
  GIT_ASKPASS: NO_ASKPASS,
  GIT_TERMINAL_PROMPT: '0',
  GIT_MERGE_AUTOEDIT: 'no',
  // git's automatic maintenance (after a commit, a fetch, a merge) runs before the command that started it returns,
  // not detached into the background: nothing outlives its command, and a detached one would be ended half done (a
  // loaded host runs it well after the commit) and named as a process the command left running.
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'maintenance.autoDetach',
  GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'gc.autoDetach',
  GIT_CONFIG_VALUE_1: 'false',
  GCM_INTERACTIVE: 'never',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: 'cat',
  DEBIAN_FRONTEND: 'noninteractive',
  APT_LISTCHANGES_FRONTEND: 'none',
  PIP_NO_INPUT: '1',
  GH_PROMPT_DISABLED: '1',
  TF_INPUT: '0',
});
