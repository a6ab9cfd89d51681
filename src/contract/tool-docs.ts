// What the model reads about each tool's parameters and about the job tools themselves.
import type { CommandLimits, JobLimits } from './limits.js';

export const bashParamDocs = {
  command: 'The bash command to run, as one `bash -c` script.',
  description:
    'What the command does, in 5-10 words of active voice (for example "List files in the build directory"); shown to the user.',
  timeoutMsPromotes: (limits: CommandLimits) =>
    `Milliseconds to wait for the command (default ${limits.timeoutMs}, at most ${limits.maxTimeoutMs}). A command still running then keeps running as a background job whose id the result gives.`,
  timeoutMs: (limits: CommandLimits) => `Milliseconds before the command is killed (default ${limits.timeoutMs}, at most ${limits.maxTimeoutMs}).`,
  workdir:
    'Directory to run in, absolute or relative to the session directory. Use this instead of `cd`: no shell state survives between calls.',
  runInBackground:
    'Start the command as a background job and return its id at once; read it with job_output, stop it with job_kill.',
  sandboxPermissions:
    'Only after a command was denied by the sandbox: the narrowest wider mode it needs, for this one call. The user is asked to approve.',
  justification:
    'With sandbox_permissions: one sentence, in the language of the current user request, telling the user why this exact command needs the wider access.',
};

export const jobToolDocs = {
  jobOutput:
    'Read the newest output of one of your background jobs: only what you have not read yet, then its status line ([status: running] or how it ended). With wait: true, first wait for the job to finish.',
  jobList: 'List your background jobs, one line each: id, kind, status and label.',
  jobKill: 'Stop one of your background jobs (TERM to its processes, KILL after a grace period).',
  jobId: 'The job id, as `started background job <id>` or a hand-off named it (for example "bash-1").',
  wait: 'Block until the job finishes or timeout_ms passes, then read. Prefer this to calling job_output repeatedly.',
  timeoutMs: (limits: JobLimits) => `With wait: how long to wait, in milliseconds (default ${limits.waitMs}, at most ${limits.maxWaitMs}).`,
  reason: 'Why the job is no longer needed; kept in its status.',
};

/** Each tool's title, as MCP annotations carry it to a client's UI and its model. */
export const toolTitles = {
  bash: 'Run a bash command',
  jobOutput: 'Read background job output',
  jobList: 'List background jobs',
  jobKill: 'Stop a background job',
  sessionOpen: 'Open a shellring session',
};

/** What the fields of each tool's structuredContent mean, as its outputSchema describes them. */
export const outputSchemaDocs = {
  spillPath: 'The file that holds the whole stream, when the tail was cut and the spill is complete.',
  spillUnavailable: 'Why a cut stream has no spill file (the text of its [spill unavailable: ...] line).',
  exitCode: 'foreground: the exit status; null when a signal ended it.',
  signal: 'foreground: the signal that ended the command.',
  stopped: 'foreground: the reason a person gave for stopping it.',
  leftover: 'foreground: processes the command left running, and the background job that holds them, if any.',
  ended: 'foreground: processes a confined command left running, which its sandbox ended with it.',
  networkBlocked: 'foreground, network by name: the connections the proxy refused while the call ran (host, port, reason), each once.',
  unreadable: 'Paths the command named that are outside what this session can read (hidden or refused by the sandbox).',
  jobId: 'background and promoted: the job to read with job_output.',
  output: 'promoted: the output shown before the hand-off.',
  waiting: 'promoted: what the command waits for, when known (input nobody can type, or connections).',
  job: 'Absent once the job was dropped from the finished jobs kept.',
  unreadBytes: 'Bytes this read left for the next job_output call.',
  status: 'The status line, as job_output ends with it.',
  session: 'The handle to pass as `session`.',
};
