// Renders a foreground bash result into the exact model-facing text of the contract.
import { Lines, markers } from './markers.js';
import { spillUnavailable } from './spill-texts.js';

/** One stream as the renderer needs it: its tail text, and where the whole stream is when the tail was cut. */
export interface RenderedStream {
  text: string;
  truncated: boolean;
  spillPath?: string;
  /** Why there is no spill file (the line under the truncation marker). */
  spillUnavailable?: string;
}

/** What a confined call reports about its confinement (the executor, the renderer and the tool results share it). */
export interface SandboxFacts {
  mode: string;
  /** A non-zero exit with the backend's denial text on stderr. */
  denied: boolean;
  enforcement?: 'full' | 'partial';
  /** The runner itself failed; the command did not run. */
  runnerFailed?: boolean;
}

export interface ForegroundFacts {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  timeoutMs: number;
  stopped?: string;
  stdout: RenderedStream;
  stderr: RenderedStream;
  sandbox?: SandboxFacts;
  /** A timeout killed the command because the session was at this job limit (promotion would have moved it). */
  notMoved?: number;
  /** Processes the command left running, and the job that holds them where one does. */
  leftover?: { count: number; jobId?: string };
}

/** A stream's tail, then, when it was cut, where the whole stream is. */
function addStream(out: Lines, stream: RenderedStream): void {
  out.add(stream.text);
  if (!stream.truncated) return;
  out.add(markers.truncated(stream.spillPath));
  if (stream.spillPath === undefined && stream.spillUnavailable !== undefined) {
    out.add(spillUnavailable.marker(stream.spillUnavailable));
  }
}

export function renderForeground(facts: ForegroundFacts, escalationAdvertised = false): string {
  const out = new Lines();
  addStream(out, facts.stdout);
  if (facts.stderr.text !== '' || facts.stderr.truncated) {
    out.add(markers.stderr);
    addStream(out, facts.stderr);
  }
  if (out.text === '') out.add(markers.noOutput);
  for (const line of markerLines(facts, escalationAdvertised)) out.add(line);
  return out.text;
}

function markerLines(facts: ForegroundFacts, escalationAdvertised: boolean): string[] {
  const lines: string[] = [];
  if (facts.sandbox?.denied) {
    lines.push(markers.denied(facts.sandbox.mode));
    if (escalationAdvertised) lines.push(markers.escalationHint);
  }
  // Before the exit marker, which stays last (views read the exit status from the final line).
  if (facts.leftover) lines.push(markers.leftover(facts.leftover.count, facts.leftover.jobId));
  if (facts.timedOut) lines.push(markers.timedOut(facts.timeoutMs));
  if (facts.timedOut && facts.notMoved !== undefined) lines.push(markers.notMoved(facts.notMoved));
  if (facts.stopped !== undefined) lines.push(markers.stopped(facts.stopped));
  if (facts.signal) lines.push(markers.signal(facts.signal));
  else if (facts.exitCode !== 0) lines.push(markers.exitCode(facts.exitCode));
  return lines;
}
