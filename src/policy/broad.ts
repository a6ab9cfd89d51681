// Prefixes too broad to allow for a whole session: a shell, an interpreter or a command runner alone would allow
// every program, so a person can allow such a command once, never always.
import { basename } from './resolve.js';

const BROAD: ReadonlySet<string> = new Set([
  'bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox',
  'python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'perl', 'ruby', 'php', 'lua', 'tclsh', 'awk', 'gawk',
  'env', 'sudo', 'doas', 'su', 'pkexec', 'xargs', 'eval', 'exec', 'command', 'builtin', 'source', '.',
  'timeout', 'nice', 'nohup', 'stdbuf', 'ionice', 'time', 'watch', 'parallel', 'ssh', 'docker', 'kubectl',
]);

/** Whether "allow always" may add `prefix`: not when it is one broad word, nor when it starts with a runner. */
export function isBroadPrefix(prefix: readonly string[]): boolean {
  return prefix.length === 1 && BROAD.has(basename(prefix[0]!));
}
