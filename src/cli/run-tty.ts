// `shellring run --tty`: the command as a terminal job of this terminal's size, typed into from here. Keystrokes go
// to it as they are pressed (this terminal in raw mode), its output comes back as it draws, a resize follows, and
// the exit status is the command's own.
import type { Runtime } from '../runtime/runtime.js';
import type { Session } from '../runtime/session.js';
import type { JobInfo } from '../jobs/types.js';
import { constants } from 'node:os';
import { onceSignal, write, type CliIO } from './io.js';

/** How often the job's output is looked for: quicker than a person notices, cheap for one job. */
const PUMP_MS = 10;
/** What a job_output read would say stopped it, when this process is told to end. */
const ENDED_HERE = 'shellring run --tty was ended';

export interface TerminalIO extends CliIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** This terminal's size, when stdout is one. */
  size(): { cols: number; rows: number } | undefined;
  /** Calls `listener` when this terminal changes size; returns the unsubscribe. */
  onResize(listener: () => void): () => void;
}

export async function runOnTerminal(runtime: Runtime, session: Session, command: string, description: string, io: TerminalIO): Promise<number> {
  const jobs = runtime.jobs!;
  const size = io.size();
  const started = await session.callTool('bash', { command, description, run_in_background: true, tty: true }, size ? { terminalSize: size } : {});
  const jobId = (started.structuredContent as { jobId?: string } | undefined)?.jobId;
  if (started.isError || jobId === undefined) {
    await write(io.stderr, `${started.content.map((part) => part.text).join('')}\n`);
    return 1;
  }
  let offset = 0;
  const pump = () => {
    for (;;) {
      const read = jobs.follow(jobId, offset);
      for (const segment of read.segments) io.stdout.write(segment.data);
      offset = read.to;
      if (read.to >= read.total || read.segments.length === 0) return;
    }
  };
  const settled = new Promise<JobInfo>((resolve) => {
    const off = jobs.on('settled', ({ job }) => {
      if (job.id !== jobId) return;
      off();
      resolve(job);
    });
    const known = jobs.list(session.id).find((job) => job.id === jobId);
    if (known && known.state !== 'running' && known.state !== 'stopping') resolve(known);
  });
  const ticking = setInterval(pump, PUMP_MS);
  const raw = io.stdin.isTTY === true && typeof io.stdin.setRawMode === 'function';
  if (raw) io.stdin.setRawMode!(true);
  let sent = size;
  const follow = () => {
    const now = io.size();
    if (!now || (sent && now.cols === sent.cols && now.rows === sent.rows)) return;
    sent = now;
    jobs.resize(jobId, now);
  };
  // The resize event may come after keystrokes typed after the resize: each keystroke checks the size first, so the
  // program has its new size before it reads them.
  const typed = (bytes: Buffer) => {
    follow();
    jobs.input(jobId, bytes);
  };
  io.stdin.on('data', typed);
  io.stdin.resume();
  const offResize = io.onResize(follow);
  // In raw mode ctrl-c is a byte for the program; a signal from elsewhere ends the job.
  const release = onceSignal(['SIGINT', 'SIGTERM', 'SIGHUP'], () => jobs.kill(jobId, ENDED_HERE));
  try {
    const job = await settled;
    pump();
    if (job.exitCode !== undefined && job.exitCode !== null) return job.exitCode;
    if (job.signal) return 128 + (constants.signals[job.signal as NodeJS.Signals] ?? 0);
    await write(io.stderr, `[${job.state}: ${job.detail ?? ''}]\n`);
    return 1;
  } finally {
    clearInterval(ticking);
    release();
    offResize();
    io.stdin.off('data', typed);
    io.stdin.pause();
    if (raw) io.stdin.setRawMode!(false);
  }
}
