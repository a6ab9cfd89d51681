// For the fallback scripts: re-runs the calling script in a user namespace whose limits allow no further mount or
// user namespace (the host's own limits stay untouched), passes its output on and exits; inside, returns.
import { spawnSync } from 'node:child_process';

export function rerunWithoutNamespaces() {
  if (process.env.SHELLRING_NO_NAMESPACES) return;
  const limits = 'echo 0 > /proc/sys/user/max_mnt_namespaces && echo 0 > /proc/sys/user/max_user_namespaces';
  const inner = spawnSync(
    'unshare',
    ['--user', '--map-root-user', 'sh', '-c', `${limits} && exec "$0" "$@"`, process.execPath, ...process.argv.slice(1)],
    { encoding: 'utf8', env: { ...process.env, SHELLRING_NO_NAMESPACES: '1' }, stdio: ['ignore', 'pipe', 'inherit'], timeout: 100_000 },
  );
  process.stdout.write(inner.stdout);
  process.exit(inner.status ?? 1);
}
