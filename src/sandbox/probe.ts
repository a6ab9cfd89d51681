// What confinement this host can enforce: asked once of shellring-runner (Landlock) and bubblewrap.
import { execFileSync } from 'node:child_process';

export type SandboxBackend = 'landlock' | 'bubblewrap';

const cache = new Map<string, boolean>();

/** Whether `backend` can confine a command here; a failing probe means no (the runtime then fails closed). */
export function backendUsable(backend: SandboxBackend, runner: string, bwrap: string): boolean {
  const key = `${backend}\0${runner}\0${bwrap}`;
  let usable = cache.get(key);
  if (usable === undefined) {
    // Both backends start through the runner, so it must answer its probe either way.
    const abi = landlockAbi(runner);
    usable = backend === 'landlock' ? abi >= 1 : abi >= 0 && bubblewrapRuns(bwrap);
    cache.set(key, usable);
  }
  return usable;
}

/** The runner's report of the kernel's Landlock ABI (0: none); -1 when the runner does not answer. */
function landlockAbi(runner: string): number {
  try {
    const probe = JSON.parse(execFileSync(runner, ['--probe'], { encoding: 'utf8', timeout: 5_000 })) as {
      landlockAbi?: unknown;
    };
    return typeof probe.landlockAbi === 'number' ? probe.landlockAbi : -1;
  } catch {
    return -1;
  }
}

function bubblewrapRuns(bwrap: string): boolean {
  try {
    const args = ['--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev'];
    execFileSync(bwrap, [...args, '--proc', '/proc', '--unshare-pid', '--', 'true'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}
