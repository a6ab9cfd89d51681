// The standing sandbox mode as the model reads it before any denial: the runtime context the bash tool contributes
// after the fixed prompt sections, one `<what>: <value>` line each, so further facts (what a command can read) add
// lines without changing these.

/** Where it sits: after every fixed section, so a mode switch leaves every earlier byte of the prompt cached. */
export const SANDBOX_CONTEXT_SECTION = { name: 'tool:bash:sandbox', order: 1_000_000 } as const;

export interface SandboxContextFacts {
  mode: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** The session's working directory, the workspace a workspace-write command may write. */
  workspace: string;
}

const WRITABLE = {
  'read-only': () => 'nothing (only /dev/null); writing a file is denied',
  'workspace-write': (workspace: string) => `${workspace} and below, and $TMPDIR (a private temporary directory)`,
  'danger-full-access': () => 'anywhere this server may write (file writes are not confined)',
} as const;

export function sandboxContext(facts: SandboxContextFacts): string {
  return [
    `Sandbox mode of this session: ${facts.mode} (set by a person; it can change between calls).`,
    `Commands can write: ${WRITABLE[facts.mode](facts.workspace)}.`,
  ].join('\n');
}
