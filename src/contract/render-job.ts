// Renders job reads (stdout chunks, then a [stderr] section, then notices) and job status lines.
import { appendLine, markers } from './markers.js';

/** What a job's state says in its status line. */
export interface StatusFacts {
  state: string;
  detail?: string;
  killReason?: string;
}

/** One consuming read's bytes, in ring order. */
export interface ReadSegments {
  segments: { kind: string; data: Buffer }[];
}

/** `[status: <state>]` or `[status: <state>, <detail>[; <reason>]]`. */
export function statusLine(job: StatusFacts): string {
  if (!job.detail) return `[status: ${job.state}]`;
  const reason = job.killReason ? `; ${job.killReason}` : '';
  return `[status: ${job.state}, ${job.detail}${reason}]`;
}

/** The read's text: stdout (and runtime log) chunks first, then `[stderr]` and the stderr chunks, then notices.
 * `droppedPaths` is given when bytes were lost before this read. */
export function renderRead(read: ReadSegments, droppedPaths: string[] | undefined, notices: string[]): string {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  for (const segment of read.segments) (segment.kind === 'stderr' ? err : out).push(segment.data);
  let text = Buffer.concat(out).toString('utf8');
  if (err.length) text = appendLine(text, `${markers.stderr}\n${Buffer.concat(err).toString('utf8')}`);
  if (droppedPaths) text = appendLine(text, markers.dropped(droppedPaths));
  for (const notice of notices) text = appendLine(text, notice);
  return text;
}
