// What the model reads when a silent command is known to wait: for input nobody can type, or for connections.

/** What a command as a whole is known to wait for: input nobody can give it, or connections (the supervisor's
 * finding, src/executor/waiting.ts). */
export type WaitingFinding =
  | { kind: 'input'; pid: number; name: string; source: 'terminal' | 'stdin'; typable?: true }
  | { kind: 'accept'; pid: number; name: string; address: string };

/** The finding on a line of its own. */
export function waitingLine(finding: WaitingFinding): string {
  if (finding.kind === 'accept') return `[waiting: pid ${finding.pid} (${finding.name}) accepts connections on ${finding.address}]`;
  // A terminal job's own terminal: job_input types into it.
  if (finding.typable) return `[waiting for input: pid ${finding.pid} (${finding.name}) reads its terminal; answer it with job_input]`;
  const reads = finding.source === 'terminal' ? 'reads a terminal' : 'reads its stdin';
  return `[waiting for input: pid ${finding.pid} (${finding.name}) ${reads}; this tool cannot type into it — job_kill it and rerun non-interactively]`;
}

/** The waiting line of a terminal job found reading its own terminal (job_input answers it); else nothing. */
export function typableLine(finding: WaitingFinding | undefined): string | undefined {
  return finding?.kind === 'input' && finding.typable ? waitingLine(finding) : undefined;
}

/** The hand-off of a command known to wait: no promise of a completion notice, since it may never finish. */
export const handOffWaiting = (ms: number, id: string) =>
  `[still running after ${ms}ms; moved to background job ${id}]\nThe command keeps running in the background, waiting as the line above says; read newer output with job_output, stop it with job_kill.`;
