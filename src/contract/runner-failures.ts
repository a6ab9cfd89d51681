// The words a runner's own failure (the command did not run) is told in, chosen by the stable code of its status line
// (`error <CODE> <message>`, crates/wire/src/stage.rs): the runner's message is only the detail it carries. A
// failed step of starting the command comes as its stable token, errno and the OS's text for it (then a tab and
// what it named: crates/wire/src/stage.rs), and is worded here.

/** The stable codes of the runner's own failures, as crates/wire/src/stage.rs names them. */
export const RUNNER_ERROR_CODES = ['RUNNER_REQUEST', 'RUNNER_SETUP', 'RUNNER_SPAWN', 'RUNNER_SANDBOX_UNAVAILABLE'] as const;
export type RunnerErrorCode = (typeof RUNNER_ERROR_CODES)[number];

/** The session view cannot be had on this host (a code of its own, and a step's words). */
const VIEW_UNAVAILABLE = 'sandbox unavailable: the session view needs a mount namespace';

/** Each step of starting a command by its token (crates/wire/src/stage.rs), from what it named (if anything). */
const STAGES: Record<string, (subject: string) => string> = {
  exec: (program) => `spawn ${program}`,
  caps: () => 'sandbox drop capabilities',
  landlock: () => 'sandbox landlock_restrict_self',
  'parent-gone': () => 'spawn: the runner ended before the command started',
  fds: () => 'sandbox close descriptors',
  cgroup: () => 'sandbox join cgroup',
  'cgroup-mkdir': (dir) => `sandbox cgroup ${dir}: mkdir`,
  'cgroup-file': (path) => `sandbox cgroup ${path.slice(0, path.lastIndexOf('/'))}: ${path.slice(path.lastIndexOf('/') + 1)}`,
  nproc: () => 'sandbox process limit',
  seccomp: () => 'sandbox seccomp',
  'pid-ns': () => 'sandbox pid namespace',
  namespace: (step) => `sandbox namespace ${NAMESPACE_STEPS[step] ?? step}`,
  view: () => VIEW_UNAVAILABLE,
  pipe: () => 'spawn: pipe',
  fork: () => 'spawn: fork',
  signalfd: () => 'signalfd',
  stdio: () => 'spawn: stdio',
};

/** The steps of making a command's namespaces by token (crates/runner/src/confine/mount_ns.rs `STEPS`). */
const NAMESPACE_STEPS: Record<string, string> = {
  unshare: 'unshare',
  setgroups: 'setgroups',
  uid_map: 'uid_map',
  gid_map: 'gid_map',
  'make-private': 'make / private',
  open_tree: 'open_tree',
  'hide-state': 'hide state',
  'mkdir-mount-point': 'mkdir mount point',
  mount_setattr: 'mount_setattr',
  move_mount: 'move_mount',
  chdir: 'chdir',
  mask: 'mask',
  'mount-proc': 'mount proc',
  idmap: 'idmap the system trees',
};

/** The tokens the runner reports steps and namespace steps by, for the test that holds them to the runner's. */
export const RUNNER_STAGE_TOKENS = { stages: Object.keys(STAGES), namespaceSteps: Object.keys(NAMESPACE_STEPS) };

/** `<token>[ <errno> <OS text>][\t<subject>]`. */
const STAGE_DETAIL = /^([a-z_-]+)(?: (\d+) ([^\t]*))?(?:\t(.*))?$/s;

/**
 * A failed step's words and the OS's reason, as Rust words an OS error (`<step>: <text> (os error <errno>)`); a
 * detail that is no step's (a runner's free words, as an older one wrote them) is told as it came.
 */
function stageFailure(detail: string): string {
  const match = STAGE_DETAIL.exec(detail);
  const words = match && Object.hasOwn(STAGES, match[1]!) ? STAGES[match[1]!]!(match[4] ?? '') : undefined;
  if (words === undefined) return detail;
  return match![2] === undefined ? words : `${words}: ${match![3]} (os error ${match![2]})`;
}

/** Each code's text from the runner's detail (the stage that failed and the OS's own words for why). */
const FAILURES: Record<RunnerErrorCode, (detail: string) => string> = {
  /** A request the runner could not decode: a fault of the host side, never of the command. */
  RUNNER_REQUEST: (detail) => `shellring-runner refused its request (${detail})`,
  /** Setting up, confining, forking or exec'ing failed: the step and the OS error text, as a spawn failure is told. */
  RUNNER_SETUP: stageFailure,
  RUNNER_SPAWN: stageFailure,
  /** The read policy needs a mount namespace this host would not give: why, without the host's errno. */
  RUNNER_SANDBOX_UNAVAILABLE: () => VIEW_UNAVAILABLE,
};

/** A runner's failure as the call and the command's stderr tell it; an uncoded line is no runner's and says so. */
export function runnerFailure(code: RunnerErrorCode | undefined, detail: string): string {
  return code ? FAILURES[code](detail) : `shellring-runner could not be started: ${detail}`;
}
