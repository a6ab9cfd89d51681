// The exit pill of a rendered result: recovered from the text alone (parseExitStatus, for a text with nothing else
// beside it), or taken from the result's structured facts (foregroundExit, what the UIs use).
import { markers } from './markers.js';

export type ExitStatus = { output: string; exitCode: number | null } | { output: string; signal: string };

const FINAL = /\n\[(?:killed by signal: ([^\]\n]+)|exit code: (-?\d+|null))\]$/;

export function parseExitStatus(text: string): ExitStatus {
  const match = FINAL.exec(text);
  if (!match) return { output: text, exitCode: 0 };
  const output = text.slice(0, match.index);
  if (match[1] !== undefined) return { output, signal: match[1] };
  return { output, exitCode: match[2] === 'null' ? null : Number(match[2]) };
}

/**
 * The exit pill of a foreground result from its structured facts (`exitCode`, `signal` of its structuredContent),
 * and its text without the one final line the renderer wrote for them: the text is never read for the status, so
 * output that merely looks like a marker stays output.
 */
export function foregroundExit(text: string, facts: { exitCode?: unknown; signal?: unknown }): ExitStatus {
  if (typeof facts.signal === 'string') return { output: withoutLine(text, markers.signal(facts.signal)), signal: facts.signal };
  const exitCode = typeof facts.exitCode === 'number' ? facts.exitCode : null;
  if (exitCode === 0) return { output: text, exitCode };
  return { output: withoutLine(text, markers.exitCode(exitCode)), exitCode };
}

function withoutLine(text: string, line: string): string {
  return text.endsWith(`\n${line}`) ? text.slice(0, -(line.length + 1)) : text;
}
