// Recovers the exit pill from a rendered result: only a final signal or exit-code marker is consumed.

export type ExitStatus = { output: string; exitCode: number | null } | { output: string; signal: string };

const FINAL = /\n\[(?:killed by signal: ([^\]\n]+)|exit code: (-?\d+|null))\]$/;

export function parseExitStatus(text: string): ExitStatus {
  const match = FINAL.exec(text);
  if (!match) return { output: text, exitCode: 0 };
  const output = text.slice(0, match.index);
  if (match[1] !== undefined) return { output, signal: match[1] };
  return { output, exitCode: match[2] === 'null' ? null : Number(match[2]) };
}
