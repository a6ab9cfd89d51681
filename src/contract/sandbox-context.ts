// The standing sandbox mode as the model reads it before any denial: the runtime context the bash tool contributes
// after the fixed prompt sections, one `<what>: <value>` line each (mode, what commands can write, what they can read).

/** Where it sits: after every fixed section, so a mode switch leaves every earlier byte of the prompt cached. */
export const SANDBOX_CONTEXT_SECTION = { name: 'tool:bash:sandbox', order: 1_000_000 } as const;

/**
 * The operating system the session view shows read-only (crates/runner/src/confine/view.rs `SYSTEM`; a test holds the two
 * equal), and the kernel's trees and devices shown beside it.
 */
export const VIEW_SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'] as const;
export const VIEW_KERNEL = ['/proc', '/sys', '/dev'] as const;

/** The system directories as a line names them: the /lib variants as one. */
const SYSTEM_SHOWN = [...new Set([...VIEW_SYSTEM, ...VIEW_KERNEL].map((dir) => (dir.startsWith('/lib') ? '/lib*' : dir)))].join(', ');

type Mode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** What confined commands may read, as configured (the sandbox's `read` and `readAllow`). */
export interface ReadViewFacts {
  view: 'session' | 'host';
  readAllow: readonly string[];
}

export interface SandboxContextFacts {
  mode: Mode;
  /** The session's working directory, the workspace a workspace-write command may write; absent where every
   * session has its own (a Cordis composition's one prompt). */
  workspace?: string;
  read: ReadViewFacts;
  /** With the network by name: the hosts its commands can reach. */
  reach?: readonly string[];
  /** With the network by name: a host on neither list is put to a person. */
  asks?: boolean;
}

const workspaceOf = (workspace: string | undefined) => workspace ?? "the session's working directory";

const WRITABLE = {
  'read-only': () => 'nothing (only /dev/null); writing a file is denied',
  'workspace-write': (workspace: string | undefined) => `${workspaceOf(workspace)} and below, and $TMPDIR (a private temporary directory)`,
  'danger-full-access': () => 'anywhere this server may write (file writes are not confined)',
} as const;

/** What a session's commands can read: the prompt's `Commands can read:` line, and what a read refusal names. */
export function readableSummary(mode: Mode, workspace: string | undefined, read: ReadViewFacts): string {
  if (mode === 'danger-full-access') return 'anything this server may read (reads are not confined)';
  if (read.view === 'host') return "every file this server may read, but other sessions' files and the credential stores the sandbox masks";
  const own = [`${workspaceOf(workspace)} and below`, ...(mode === 'workspace-write' ? ['$TMPDIR'] : []), ...read.readAllow];
  return `the system (${SYSTEM_SHOWN}), ${own.join(', ')}, this session's spill files and the toolchains on PATH; nothing else (other homes, /srv, /tmp, /var and the rest are empty or absent)`;
}

export function sandboxContext(facts: SandboxContextFacts): string {
  return [
    `Sandbox mode of this session: ${facts.mode} (set by a person; it can change between calls).`,
    `Commands can write: ${WRITABLE[facts.mode](facts.workspace)}.`,
    `Commands can read: ${readableSummary(facts.mode, facts.workspace, facts.read)}.`,
    ...(facts.reach ? [`Commands can reach: ${reachLine(facts.mode, facts.reach, facts.asks === true)}.`] : []),
  ].join('\n');
}

function reachLine(mode: SandboxContextFacts['mode'], hosts: readonly string[], asks: boolean): string {
  if (mode === 'danger-full-access') return 'any host (the network is not confined in this mode)';
  const through = 'through the proxy their environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY)';
  const says = 'the result says [network: blocked <host>:<port> — <reason>]';
  if (asks) {
    const named = hosts.length ? hosts.join(', ') : 'no host but those a person allows';
    return `${named}, ${through}; a connection to a host the policy does not name waits while a person is asked to allow it; for each refused connection ${says}`;
  }
  const named = hosts.length ? `only ${hosts.join(', ')}` : 'no host';
  return `${named}, ${through}; any other connection is refused and ${says}`;
}
