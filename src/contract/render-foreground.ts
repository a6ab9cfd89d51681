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
  /** Paths the command's errors name that are outside what the session can read (hidden or refused by its view). */
  unreadable?: string[];
}

/** One refused connection: the host and port asked for, and the rule's reason. */
export interface NetworkBlock {
  host: string;
  port: number;
  reason: string;
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
  /** Connections the network proxy refused while the call ran, in order, each once. */
  networkBlocked?: NetworkBlock[];
  /** Under network by name, the command's output says a name lookup failed. */
  lookupFailed?: boolean;
  /** Processes the command left running, and the job that holds them where one does (`ended`: an escalated
   * command's, ended with it). */
  leftover?: { count: number; jobId?: string; ended?: boolean };
  /** Processes a confined command left running, which its sandbox ended with it; `background`: the session can
   * run a long-lived process as a background job instead. */
  ended?: { count: number; background: boolean };
  /** The timeoutMs the call asked for, when it was above the cap it ran under (`timeoutMs`, or the deadline). */
  cappedFrom?: { asked: number; cap: number };
  /** What the session can read, for the line a read refusal gives (`sandbox.unreadable`). */
  readable?: string;
  /** The runner supervising the command was killed before it ended: the output is what it printed until then. */
  supervisionEnded?: boolean;
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
  const lines = sandboxLines(facts.sandbox, facts.readable, escalationAdvertised);
  for (const b of facts.networkBlocked ?? []) lines.push(markers.networkBlocked(b.host, b.port, b.reason));
  if (facts.lookupFailed) lines.push(markers.lookupFailed);
  // Before the exit marker, which stays last (views read the exit status from the final line).
  if (facts.leftover?.ended) lines.push(markers.escalationLeftoverEnded(facts.leftover.count));
  else if (facts.leftover) lines.push(markers.leftover(facts.leftover.count, facts.leftover.jobId));
  if (facts.ended) lines.push(markers.leftoverEnded(facts.ended.count, facts.ended.background));
  if (facts.cappedFrom) lines.push(markers.timeoutCapped(facts.cappedFrom.asked, facts.cappedFrom.cap));
  if (facts.timedOut) lines.push(markers.timedOut(facts.timeoutMs));
  if (facts.timedOut && facts.notMoved !== undefined) lines.push(markers.notMoved(facts.notMoved));
  if (facts.stopped !== undefined) lines.push(markers.stopped(facts.stopped));
  if (facts.signal) lines.push(markers.signal(facts.signal));
  else if (facts.supervisionEnded) lines.push(markers.supervisionEnded);
  else if (facts.exitCode !== 0) lines.push(markers.exitCode(facts.exitCode));
  return lines;
}

/**
 * What the sandbox refused, each with the retry worth offering where someone can approve one: a read outside the
 * session's view (only danger-full-access reads there, so no write mode is offered for it), then a write the mode
 * denied. `readable`: what the session can read, named beside a read refusal.
 */
export function sandboxLines(sandbox: SandboxFacts | undefined, readable: string | undefined, escalationAdvertised: boolean): string[] {
  const lines: string[] = [];
  if (sandbox?.unreadable?.length && readable !== undefined) {
    lines.push(markers.unreadable(sandbox.unreadable, readable));
    if (escalationAdvertised) lines.push(markers.readEscalationHint);
  }
  if (sandbox?.denied) {
    lines.push(markers.denied(sandbox.mode));
    if (escalationAdvertised) lines.push(markers.escalationHint);
  }
  return lines;
}
