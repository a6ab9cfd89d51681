// One table of bash tool calls whose model-facing texts must be byte-identical whichever executor runs them.
export interface ContractCase {
  name: string;
  args: Record<string, unknown>;
}

export const CONTRACT_CASES: ContractCase[] = [
  { name: 'plain output', args: { command: 'echo hello' } },
  { name: 'no output', args: { command: 'true' } },
  { name: 'stdout, stderr and an exit code', args: { command: 'echo out; echo err >&2; exit 3' } },
  { name: 'no trailing newline', args: { command: 'printf abc; printf def >&2' } },
  { name: 'bytes that are not UTF-8', args: { command: "printf 'a\\xff\\xfeb\\n'" } },
  { name: 'interleaved streams', args: { command: 'for i in 1 2 3; do echo o$i; echo e$i >&2; done' } },
  { name: 'a tail and a spill file', args: { command: 'seq 1 200000' } },
  { name: 'a long stderr', args: { command: 'seq 1 100000 >&2; exit 1' } },
  { name: 'killed by a signal', args: { command: 'echo before; kill -9 $$' } },
  { name: 'a timeout', args: { command: 'echo start; sleep 30', timeoutMs: 2_000 } },
  { name: 'a trapped TERM at timeout', args: { command: "trap 'echo got TERM; exit 5' TERM; echo ready; sleep 30 & wait", timeoutMs: 2_000 } },
  { name: 'stdin is empty', args: { command: 'cat; echo "read: $?"' } },
  { name: 'a missing working directory', args: { command: 'pwd', workdir: '/nonexistent/shellring-dir' } },
  { name: 'the working directory', args: { command: 'pwd', workdir: '/usr' } },
  { name: 'the managed environment', args: { command: 'echo "$DSH_SESSION_ID"; env | grep -c ^DSH_' } },
  { name: 'a process left running', args: { command: 'sleep 30 >/dev/null 2>&1 & echo started' } },
  { name: 'a long command reaches bash on stdin', args: { command: `echo ${'x'.repeat(140_000)} | wc -c` } },
];
