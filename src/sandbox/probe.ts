// What confinement this host can enforce: asked once of shellring-runner (Landlock) and bubblewrap, off the event loop.
import { execFile } from 'node:child_process';

export type SandboxBackend = 'landlock' | 'bubblewrap';

const cache = new Map<string, Promise<boolean>>();

/**
 * Whether `backend` can confine a command here; a failing probe means no (the runtime then fails closed).
 * Asked once per runner and bwrap: concurrent first calls share one probe, and none blocks the event loop.
 */
export function backendUsable(backend: SandboxBackend, runner: string, bwrap: string): Promise<boolean> {
  const key = `${backend}\0${runner}\0${bwrap}`;
  let usable = cache.get(key);
  if (usable === undefined) {
    // Both backends start through the runner, so it must answer its probe either way.
    usable = landlockAbi(runner).then(async (abi) => (backend === 'landlock' ? abi >= 1 : abi >= 0 && (await bubblewrapRuns(bwrap))));
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

/** The runner's report of the kernel's Landlock ABI (0: none); -1 when the runner does not answer. */
async function landlockAbi(runner: string): Promise<number> {
  const out = await probe(runner, ['--probe']);
  try {
    const report = JSON.parse(out ?? '') as { landlockAbi?: unknown };
    return typeof report.landlockAbi === 'number' ? report.landlockAbi : -1;
  } catch {
    return -1;
  }
}

async function bubblewrapRuns(bwrap: string): Promise<boolean> {
  const args = ['--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev'];
  return (await probe(bwrap, [...args, '--proc', '/proc', '--unshare-pid', '--', 'true'])) !== undefined;
}
