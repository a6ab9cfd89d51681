// What confinement this host can enforce: asked once of shellring-runner (Landlock) and bubblewrap, off the event loop.
import { execFile } from 'node:child_process';
import type { Backend } from '../executor/wire/plan.js';

export type SandboxBackend = Exclude<Backend, 'none'>;

const cache = new Map<string, Promise<boolean>>();

/**
 * Whether `backend` can confine a command here; a failing probe means no (the runtime then fails closed).
 * Asked once per runner and bwrap: concurrent first calls share one probe, and none blocks the event loop.
 */
export function backendUsable(backend: SandboxBackend, runner: string, bwrap: string): Promise<boolean> {
  const key = `${backend}\0${runner}\0${bwrap}`;
  let usable = cache.get(key);
  if (usable === undefined) {
    // Both backends start through the runner, so it must answer its probe either way, and both need seccomp: the
    // network filter, and for Landlock the metadata guard where no mount namespace can be made.
    usable = runnerReport(runner).then(async ({ abi, seccomp }) =>
      !seccomp ? false : backend === 'landlock' ? abi >= 1 : abi >= 0 && (await bubblewrapRuns(bwrap)),
    );
    cache.set(key, usable);
  }
  return usable;
}

/** Runs a probe command; resolves with its stdout, or undefined when it fails or exceeds 5 s. */
function probe(file: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: 'utf8', timeout: 5_000 }, (error, stdout) => resolve(error ? undefined : stdout));
  });
}

/** The runner's report: the kernel's Landlock ABI (0: none; -1 when the runner does not answer) and seccomp. */
async function runnerReport(runner: string): Promise<{ abi: number; seccomp: boolean }> {
  const out = await probe(runner, ['--probe']);
  try {
    const report = JSON.parse(out ?? '') as { landlockAbi?: unknown; seccomp?: unknown };
    return { abi: typeof report.landlockAbi === 'number' ? report.landlockAbi : -1, seccomp: report.seccomp === true };
  } catch {
    return { abi: -1, seccomp: false };
  }
}

async function bubblewrapRuns(bwrap: string): Promise<boolean> {
  // The namespaces and binds every confined command gets (see the runner's spawn.rs), so a host where one of
  // them cannot be made refuses at the probe, not at each call.
  const args = ['--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev'];
  args.push('--proc', '/proc', '--unshare-pid', '--unshare-ipc', '--ro-bind', '/proc/sys', '/proc/sys');
  return (await probe(bwrap, [...args, '--', 'true'])) !== undefined;
}
