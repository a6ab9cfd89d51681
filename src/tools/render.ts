// Renders a foreground bash result into the exact model-facing text of the contract.
import { markers } from '../strings.js';
import type { StreamResult } from '../executor/types.js';

export interface SandboxFacts {
  mode: string;
  denied: boolean;
  enforcement?: 'full' | 'partial';
  runnerFailed?: boolean;
}

export interface ForegroundFacts {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  timeoutMs: number;
  stopped?: string;
  stdout: StreamResult;
  stderr: StreamResult;
  sandbox?: SandboxFacts;
}

/** Appends `line` on a line of its own: a newline first unless `body` is empty or already ends in one. */
export function appendLine(body: string, line: string): string {
  return body === '' || body.endsWith('\n') ? body + line : `${body}\n${line}`;
}

function streamText(stream: StreamResult): string {
  return stream.truncated ? appendLine(stream.text, markers.truncated(stream.spillPath)) : stream.text;
}

export function renderForeground(facts: ForegroundFacts, escalationAdvertised = false): string {
  let body = streamText(facts.stdout);
  const stderr = streamText(facts.stderr);
  if (stderr !== '') body = appendLine(body, `${markers.stderr}\n${stderr}`);
  if (body === '') body = markers.noOutput;
  for (const line of markerLines(facts, escalationAdvertised)) body = appendLine(body, line);
  return body;
}

function markerLines(facts: ForegroundFacts, escalationAdvertised: boolean): string[] {
  const lines: string[] = [];
  if (facts.sandbox?.denied) {
    lines.push(markers.denied(facts.sandbox.mode));
    if (escalationAdvertised) lines.push(markers.escalationHint);
  }
  if (facts.timedOut) lines.push(markers.timedOut(facts.timeoutMs));
  if (facts.stopped !== undefined) lines.push(markers.stopped(facts.stopped));
  if (facts.signal) lines.push(markers.signal(facts.signal));
  else if (facts.exitCode !== 0) lines.push(markers.exitCode(facts.exitCode));
  return lines;
}
