// The job tools' words: results, errors, completion notices and the `tool:jobs` prompt section.
import { shownId, shownJson } from './shown.js';

/** Spill files with the bytes each holds: `<path> (<n> bytes), ...`. */
const shownFiles = (files: { path: string; bytes: number }[]) => files.map((file) => `${file.path} (${file.bytes} bytes)`).join(', ');

export const jobErrors = {
  invalidId: (value: unknown) =>
    value === undefined
      ? "missing job_id: pass the id of one of this session's background jobs (job_list lists them)"
      : `invalid job_id: expected a non-empty string, got ${shownJson(value)}`,
  unknown: (id: string) => `unknown job ${shownId(id)}`,
  /** A finished job dropped to keep the session's newest finished ones: when, why, how it ended and where its whole
   * output still is (spill files last until the session closes). */
  forgotten: (id: string, at: number, keep: number, status: string, files: { path: string; bytes: number }[]) =>
    `job ${id} was forgotten at ${new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z')}: this session keeps only its ${keep} newest finished jobs; it had finished ${status}${files.length ? `; full output: ${shownFiles(files)}` : ''}`,
  foreign: (id: string) => `job ${shownId(id)} belongs to another session`,
  limit: (n: number) =>
    `background job limit reached for this owner (limit: ${n}); use job_kill to stop an unneeded job, wait for it to finish, then retry`,
  positive: (field: string, value: unknown) => `invalid ${field}: expected a positive number, got ${shownJson(value ?? null)}`,
  type: (field: string, expected: string, value: unknown) => `invalid ${field}: expected ${expected}, got ${shownJson(value)}`,
};

export const jobTexts = {
  started: (id: string) => `started background job ${id}`,
  noNewOutput: '(no new output)',
  moreOutput: '[more output available — call job_output again]',
  waitExpired: (ms: number) => `[waited ${ms}ms; still running]`,
  noJobs: '(no background jobs)',
  listLine: (id: string, kind: string, status: string, label: string) => `${id} [${kind}] ${status} — ${label}`,
  killRequested: (id: string) => `requested cancellation of job ${id}`,
  alreadyFinished: (id: string, status: string) => `job ${id} had already finished ${status}`,
  notice: (id: string, kind: string, label: string, status: string) =>
    `background job ${id} (${kind}: ${label}) finished ${status}. Read its output with job_output.`,
  /** A settled job's detail (`[status: <s>, <detail>]`): how its command ended. */
  endedBySignal: (signal: string) => `signal: ${signal}`,
  endedWithCode: (code: number) => `exit code: ${code}`,
  killedBeforeExit: 'killed before exit',
  /** A job whose runner was killed before its command ended: its output is kept, its end is unknown. */
  supervisionEnded: 'supervision ended: its runner was killed before the command ended',
  /** The stop reason of the jobs a closing session still runs. */
  sessionClosed: 'session closed',
  /** The detail of a job that holds what a finished foreground command left running. */
  leftoverDetail: (count: number, exit: string) =>
    `bash ended (${exit}); ${count === 1 ? '1 process' : `${count} processes`} left running`,
  /** A read that skipped to the newest output: how much it skipped and the files that hold all of it. */
  skipped: (bytes: number, files: { path: string; bytes: number }[]) =>
    `[skipped ${bytes} bytes of older output; full output: ${files.length ? shownFiles(files) : '(unavailable)'}; grep or tail the file instead of paging]`,
  /** A background or promoted job whose command runs under an approved escalation: what that approval covers. */
  escalated: (id: string, mode: string) =>
    `[sandbox: job ${id} runs with the approved ${mode} escalation until its command ends; what the command leaves running ends with it]`,
  /** The hand-off of a command past its timeout; `notices`: the face delivers a completion notice (else the text says
   * how to wait instead). */
  promoted: (ms: number, id: string, notices: boolean) =>
    `[still running after ${ms}ms; moved to background job ${id}]\nThe command keeps running in the background. ${notices ? 'You will be notified when it finishes' : 'No notice comes when it finishes: wait for it with job_output and wait: true'}; read newer output with job_output, stop it with job_kill.`,
  /** A wait of `asked` ms cut to the most one read may wait (before the status line). */
  waitCapped: (asked: number, cap: number) => `[timeout_ms capped at ${cap}: ${asked} is more than one wait may take]`,
};

/** The `tool:jobs` prompt section; `notices`: the face delivers a completion notice when a job finishes. */
export function jobsPrompt(notices: boolean): string {
  const waiting = notices
    ? 'Do not poll job_output in a loop; you are notified when a job finishes, and job_output with wait: true blocks until then.'
    : 'Do not poll job_output in a loop: no notice comes when a job finishes, so wait for one with job_output and wait: true, which blocks until it finishes.';
  return `Background jobs: keep track of the job ids you start. ${waiting} One job_output call returns at most a window of output: when a result says \`[more output available — call job_output again]\`, call it again for the rest. For a long log, search the spill file a read names (\`full output: <path>\`) with grep, or read its end with tail, instead of paging through it with job_output. Before you give your final answer, collect the output you need from your jobs and stop the ones you no longer need with job_kill.`;
}
