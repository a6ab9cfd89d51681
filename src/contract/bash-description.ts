// The bash tool's description, in the words the model reads; it varies with the composition, its configured figures
// and the session's face (approval channel, completion notices), never per call.
import type { CommandLimits } from './limits.js';

export interface DescriptionOptions {
  limits: CommandLimits;
  /** The face delivers a completion notice when a job finishes (MCP 2026-07-28 sends no unsolicited message). */
  notices: boolean;
  background: boolean;
  promotes: boolean;
  sandbox: boolean;
  /** Someone can approve an escalation for this session: the retry is worth offering. */
  escalation: boolean;
}

/** Background jobs, as a face that tells the model when one finishes, or one that does not (it must wait instead). */
const BACKGROUND = {
  notified:
    'For long-running work (servers, watchers, long builds) set `run_in_background: true`: you get a job id at once. Read new output with job_output, list jobs with job_list, stop one with job_kill; you are told when a job finishes.',
  waited:
    'For long-running work (servers, watchers, long builds) set `run_in_background: true`: you get a job id at once. Read new output with job_output, list jobs with job_list, stop one with job_kill; no notice comes when a job finishes: wait for one with job_output and wait: true.',
};

/** Terminals, where the tool takes `tty` (it comes with run_in_background) or where it does not. */
const TERMINAL = {
  none: 'Commands get no terminal and no stdin: use non-interactive flags (`-y`, `--no-pager`, `--batch`).',
  offered:
    'Commands get no terminal and no stdin unless started with `tty: true`: prefer non-interactive flags (`-y`, `--no-pager`, `--batch`). A program that must be answered (a REPL, a password prompt, an installer that asks) runs with `tty: true` and `run_in_background: true`; type into it with job_input. On a terminal, stdout and stderr arrive as one stream.',
};

export function bashDescription(options: DescriptionOptions): string {
  const parts = [
    'Run a bash command and get back what it printed.',
    'Every call starts a fresh `bash -c` shell: the working directory, variables and functions of earlier calls are gone. Pass `workdir` instead of running `cd`, and chain dependent steps in one command with `&&`.',
    'The result is stdout, then a `[stderr]` section when the command wrote to stderr, then markers on their own lines: `[exit code: N]` for a non-zero exit, `[killed by signal: SIG…]`, `[timed out after Nms]`. A clean run ends with no marker. A non-zero exit is a result to read, not a tool failure.',
    `Each stream keeps only its last ${options.limits.maxOutputBytes} bytes; when more was printed you see \`[output truncated; full output: <path>]\`, and the whole stream is in that file (read parts of it with head, tail, grep or sed).`,
    'Commands run with managed `DSH_*` variables set: `$DSH_HOME` (the harness home), `$DSH_SHELL=1`, `$DSH_SESSION_ID` (this session), and others a deployment adds.',
    options.background ? TERMINAL.offered : TERMINAL.none,
  ];
  if (options.background) {
    parts.push(
      options.notices ? BACKGROUND.notified : BACKGROUND.waited,
    );
  }
  if (options.promotes) {
    parts.push(
      'A command still running at its timeout is not killed: it keeps running as a background job and the result names its id.',
    );
  }
  if (options.sandbox && options.escalation) {
    parts.push(
      'Commands run in a sandbox. `[sandbox: file access denied under <mode> mode]` means the sandbox blocked a file operation: that is policy, not a bug in the command. Only after such a real denial, retry the exact same command once with `sandbox_permissions` set to the narrowest wider mode that suffices and a one-sentence `justification`; the user is asked to approve. Never escalate speculatively, and a rejected escalation is final for that command.',
    );
  } else if (options.sandbox) {
    parts.push(
      'Commands run in a sandbox. `[sandbox: file access denied under <mode> mode]` means the sandbox blocked a file operation: that is policy, not a bug in the command, and nobody here can widen it. Work within it: write only where the mode allows, or tell the user what needs wider access.',
    );
  }
  return parts.join('\n\n');
}
