// How a command's supervision fails (worker, fork server, runner) when the command never ran or never reported:
// the call's error, and the line its stderr and its job status carry.

/** An errno with no name in Node's table. */
const errnoText = (errno: number) => `errno ${errno}`;

export const supervisionErrors = {
  workerStopped: (error: string) => `the supervisor worker stopped while running the command: ${error}`,
  runnerNotStarted: 'shellring-runner could not be started',
  runnerSilent: 'shellring-runner ended without reporting the command status',
  /** chdir(2)'s failure worded as Node words one: `ENOENT: no such file or directory, chdir '<dir>'`. */
  chdir: (name: string, message: string, dir: string) => `${name}: ${message}, chdir '${dir}'`,
  /** The name and message of an errno Node does not know. */
  chdirUnknown: (errno: number): [string, string] => [errnoText(errno), 'cannot enter the directory'],
  errno: errnoText,
  /** Why a command's worker is gone (`workerStopped`'s error): it exited, or the executor closed under it. */
  workerExited: 'the worker exited',
  executorClosed: 'the executor is closed',
  nulArgument: 'spawn: an argument contains a NUL byte',
  forkServer: (errno: string) => `shellring-runner --serve: ${errno}`,
  sessionServer: (errno: string) => `shellring-runner --serve (session sandbox): ${errno}`,
  /** A /proc file a supervisor could not read (the process ended, most often); caught where it is read. */
  procUnreadable: (code: string, path: string) => `${code}: cannot read ${path}`,
};
