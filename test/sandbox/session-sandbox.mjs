// Session sandboxes run by the user this script runs as (the harness starts it as root or as an unprivileged
// user): per confining mode, the namespaces of a session's calls and of another session's, a rebuild after the
// fork server is SIGKILLed, and what is left after the session closes. Prints one JSON object of facts.
// Usage: node session-sandbox.mjs <backend> <workdir>
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const NAMESPACES = 'readlink /proc/self/ns/mnt /proc/self/ns/pid | tr "\\n" " "; id -u';

const call = async (session) => (await session.callTool('bash', { command: NAMESPACES, description: 'namespaces' })).content[0].text;
const tree = (pid) => {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    return [pid, ...children.flatMap(tree)];
  } catch {
    return [];
  }
};
const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};
const live = (pids) => pids.filter((pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
});
const until = async (test) => {
  for (let waited = 0; !test() && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return test();
};

const facts = {};
for (const mode of ['read-only', 'workspace-write']) {
  const runtime = await createRuntime({ sandbox: { mode, backend }, executor: { threads: 1 } });
  const cwd = (name) => {
    const dir = join(base, `${mode}-${name}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const a = runtime.session({ id: 'a', cwd: cwd('a') });
  const b = runtime.session({ id: 'b', cwd: cwd('b') });
  const ofA = [await call(a), await call(a), await call(a)];
  const ofB = [await call(b)];
  const outer = runtime.executor.sandboxes.pidOf('a');
  const processes = tree(outer);
  const server = processes.filter((pid) => /--serve(-inside\0\d+)?\0$/.test(cmdline(pid))).at(-1);
  process.kill(server, 'SIGKILL');
  const killedGone = await until(() => live(processes).length === 0);
  const rebuilt = [await call(a), await call(a)];
  const rebuiltOuter = runtime.executor.sandboxes.pidOf('a');
  const before = tree(rebuiltOuter);
  await a.close();
  const closedGone = await until(() => live(before).length === 0);
  ofB.push(await call(b));
  await runtime.close();
  facts[mode] = { ofA, ofB, killedGone, rebuilt, rebuiltApart: rebuiltOuter !== outer, closedGone, outerFound: outer !== undefined };
}
console.log(JSON.stringify(facts));
