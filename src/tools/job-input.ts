// job_input: the model types into its terminal jobs (text, named keys, end-of-file) and reads the reply; to a job
// without a terminal it can send only an interrupt.
import { z } from 'zod';
import type { JobRegistry } from '../jobs/registry.js';
import type { JobTerminal } from '../jobs/types.js';
import {
  appendLine,
  jobErrors,
  jobTexts,
  MAX_TERMINAL_LINE,
  statusLine,
  terminalDocs,
  terminalErrors,
  terminalTexts,
  toolTitleJobInput,
} from '../contract/index.js';
import { textResult, type CallContext, type ToolResult } from './tool.js';
import { jobId, jobTool } from './job-tools.js';
import { jobOutputSchema } from './output-schemas.js';
import { ShellringError } from '../errors.js';

/** The keys a model may press, as the bytes an xterm sends for them. */
export const KEYS: Readonly<Record<string, string>> = {
  enter: '\r',
  tab: '\t',
  esc: '\x1b',
  backspace: '\x7f',
  delete: '\x1b[3~',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  'ctrl-c': '\x03',
  'ctrl-d': '\x04',
  'ctrl-z': '\x1a',
  'ctrl-l': '\x0c',
  f1: '\x1bOP',
  f2: '\x1bOQ',
  f3: '\x1bOR',
  f4: '\x1bOS',
  f5: '\x1b[15~',
  f6: '\x1b[17~',
  f7: '\x1b[18~',
  f8: '\x1b[19~',
  f9: '\x1b[20~',
  f10: '\x1b[21~',
  f11: '\x1b[23~',
  f12: '\x1b[24~',
};
const KEY_NAMES = Object.keys(KEYS);

const inputArgs = z.strictObject({
  job_id: jobId,
  text: z
    .string({ error: (issue) => jobErrors.type('text', 'a string', issue.input) })
    .optional()
    .describe(terminalDocs.text),
  keys: z
    .array(z.string({ error: (issue) => jobErrors.type('keys', terminalErrors.keysType, issue.input) }), {
      error: (issue) => jobErrors.type('keys', terminalErrors.keysType, issue.input),
    })
    .optional()
    .describe(terminalDocs.keys),
  eof: z
    .boolean({ error: (issue) => jobErrors.type('eof', 'a boolean', issue.input) })
    .optional()
    .describe(terminalDocs.eof),
});

type InputArgs = z.output<typeof inputArgs>;
export type JobInputArgsSchema = typeof inputArgs;

export const jobInputTool = jobTool(
  'job_input',
  { title: toolTitleJobInput, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  () => ({ description: terminalDocs.jobInput, schema: inputArgs }),
  jobOutputSchema,
  (jobs, args: InputArgs, context) => input(jobs, args, context),
);

async function input(jobs: JobRegistry, args: InputArgs, context: CallContext): Promise<ToolResult> {
  const job = jobs.lookup(args.job_id, context.sessionId);
  const bytes = typed(args);
  const result = (text: string, unreadBytes = 0) => {
    const info = jobs.get(job.id);
    return textResult(`${appendLine(text, '')}${info ? statusLine(info) : ''}`, { jobId: job.id, job: info, unreadBytes });
  };
  if (job.state !== 'running') return result(terminalTexts.ended(job.id));
  const terminal = jobs.terminal(job.id);
  if (!terminal?.tty) {
    if (args.text || args.eof || args.keys?.join() !== 'ctrl-c' || !terminal) throw invalid(terminalErrors.noTerminal(job.id));
    terminal.interrupt();
    return result(terminalTexts.interrupted(job.id));
  }
  // What was unread before the input leads; the echo of the input is looked for only in what followed it.
  const before = jobs.readDelta(job.id).text;
  await reply(jobs, job.id, terminal, bytes, context.signal);
  const after = jobs.readDelta(job.id);
  const text = appendLine(before, withoutEcho(after.text, args.text ?? ''));
  const more = after.unreadBytes > 0 ? `\n${jobTexts.moreOutput}` : '';
  return result((text.trim() ? text : terminalTexts.noReply) + more, after.unreadBytes);
}

/** The bytes to type: the text (each newline an Enter), the keys, then end-of-file; refused before anything is
 * typed when empty, when a key is unknown, or when a line is longer than a terminal takes. */
function typed({ text = '', keys = [], eof }: InputArgs): Buffer {
  if (!text && keys.length === 0 && !eof) throw invalid(terminalErrors.nothing);
  const unknown = keys.find((key) => !(key in KEYS));
  if (unknown !== undefined) throw invalid(terminalErrors.unknownKey(unknown, KEY_NAMES));
  for (const line of text.split(/\r\n|\r|\n/)) {
    const length = Buffer.byteLength(line);
    if (length > MAX_TERMINAL_LINE) throw invalid(terminalErrors.longLine(length));
  }
  const typing = text.replace(/\r\n|\n/g, '\r') + keys.map((key) => KEYS[key]).join('') + (eof ? KEYS['ctrl-d'] : '');
  return Buffer.from(typing);
}

/** Types `bytes` and waits for the reply: until output has been quiet a while, none came at all, the job ended, the
 * longest wait passed, or the call was cancelled (the configured timings). */
async function reply(jobs: JobRegistry, id: string, terminal: JobTerminal, bytes: Buffer, signal?: AbortSignal): Promise<void> {
  const { quietMs, silentMs, waitMs } = jobs.inputTiming;
  const started = Date.now();
  let total = jobs.outputTotal(id);
  let changed: number | undefined;
  terminal.input(bytes);
  const step = Math.max(10, Math.min(50, quietMs / 4));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, step));
    const now = Date.now();
    const latest = jobs.outputTotal(id);
    if (latest !== total) [total, changed] = [latest, now];
    const ended = jobs.get(id)?.state !== 'running';
    if (ended || signal?.aborted || now - started >= waitMs) return;
    if (changed === undefined ? now - started >= silentMs : now - changed >= quietMs) return;
  }
}

/** The reply without the terminal's echo of the typed lines: each typed line, in order, where it next shows as a
 * line's end (after a prompt) or a whole line. */
export function withoutEcho(reply: string, text: string): string {
  const lines = reply.split('\n');
  let from = 0;
  for (const typed of text.split(/\r\n|\r|\n/)) {
    if (!typed) continue;
    const at = lines.findIndex((line, index) => index >= from && line.endsWith(typed));
    if (at < 0) continue;
    const kept = lines[at]!.slice(0, lines[at]!.length - typed.length);
    if (kept) lines[at] = kept;
    else lines.splice(at, 1);
    from = kept ? at + 1 : at;
  }
  return lines.join('\n');
}

function invalid(message: string): ShellringError {
  return new ShellringError('SHELLRING_INVALID_ARGUMENTS', message);
}

/** A terminal job holds a pseudo-terminal for its life: a session holds at most the configured number. */
export function admitTerminal(jobs: JobRegistry, sessionId: string | undefined): void {
  const live = jobs.list(sessionId).filter((job) => job.state === 'running' && jobs.terminal(job.id)?.tty).length;
  if (live >= jobs.maxTerminalJobs) throw new ShellringError('SHELLRING_REFUSED', terminalErrors.limit(jobs.maxTerminalJobs));
}
