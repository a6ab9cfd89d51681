// Why a sandbox workspace root is refused: at a session's open, and at each confined call.

export const workspaceRootErrors = {
  /** `why` is one of the reasons below. */
  refused: (root: string, why: string) => `sandbox workspace root "${root}" is refused: ${why}`,
  wholeFilesystem: 'it would make the whole filesystem writable',
  home: 'it is the home directory; use a project directory',
  ownFiles: (path: string) => `it contains the runtime's own files (${path}); use a narrower directory`,
  /** A root within the runtime's state or code (its package, dependencies, runner, node): the next run executes it. */
  insideOwn: (path: string) => `it lies inside the runtime's own files (${path}); use a project directory`,
  /** A root within a tree the host runs programs or reads their configuration from (see sandbox/writable-roots.ts). */
  system: (tree: string) => `it lies inside ${tree}, where the host keeps programs and configuration it runs; use a project directory`,
  /** A root above such a tree (`/var` holds `/var/lib`): writable, it reaches the tree. */
  holdsSystem: (tree: string) => `it contains ${tree}, where the host keeps programs and configuration it runs; use a project directory`,
  /** A root that is, or holds, a home directory: its dot-directories would be writable. */
  holdsHome: (home: string) => `it contains the home directory ${home}, whose dot-directories hold configuration and tools its programs run; use a project directory`,
  /** A root that is, or holds, a directory of the runtime's PATH: its files would run by name. */
  onPath: (dir: string) => `it would make ${dir}, a directory on the runtime's PATH, writable; use a project directory`,
  /** A root within a home's dot-directory (shell startup, ssh, git, editors, toolchains). */
  homeConfig: (dir: string) => `it lies inside ${dir}, where a home keeps configuration and tools its programs run; use a project directory`,
  insideOther: (id: string, root: string) => `it lies inside session ${id}'s workspace ${root}`,
  containsOther: (id: string, root: string) => `it contains session ${id}'s workspace ${root}`,
  /** A session beside another whose workspace nests with its own (`problem`: insideOther or containsOther). */
  nested: (root: string, problem: string) =>
    `sandbox workspace root "${root}" is refused: ${problem}; give each session a workspace of its own, or the same one`,
  moved: (root: string) =>
    `sandbox workspace root "${root}" is refused: it no longer names the directory this session opened with (a component of the path was moved or replaced); open a new session`,
};
