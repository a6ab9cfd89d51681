// One-shot escalations stay one-shot: a `danger-full-access` call that leaves a ticker writing outside the roots, run
// in the foreground, promoted at its timeout and in the background, from each confining mode. Prints one JSON object
// of facts per case: what the result said, whether the ticker ran while the approved command did, and whether any of
// it was left once that command ended. Usage: node escalation.mjs <backend> <workdir>
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';
import { snapshot } from '../../dist/src/faces/console/snapshot.js';
import { Timeline } from '../../dist/src/faces/console/timeline.js';

const [backend, base] = process.argv.slice(2);
const side = join(base, 'side');
mkdirSync(side, { recursive: true });

const size = (file) => (existsSync(file) ? statSync(file).size : 0);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Live processes of the command whose command line names `tag` (the ticker's subshell carries the whole command);
 * the runner that supervised it, titled with the command, is not one of them. */
const holding = (tag) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const runner = stat.includes('(shellring-runne)');
        return !runner && stat[stat.lastIndexOf(')') + 2] !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(tag);
      } catch {
        return false;
      }
    }).length;
const until = async (test, ms = 20_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (test()) return true;
  return test();
};

/** After the approved command ended: processes left, and whether the file still grew over a generous 2.5 s. */
async function afterEnd(tick, tag) {
  const left = holding(tag);
  const before = size(tick);
  await sleep(2500);
  return { left, grewAfter: size(tick) - before };
}

async function scenario(runtime, mode, shape) {
  const ws = join(base, `${mode}-${shape}`);
  mkdirSync(ws, { recursive: true });
  const session = runtime.session({ id: `${mode}-${shape}`, cwd: ws });
  session.setSandboxMode(mode);
  const tick = join(side, `tick-${mode}-${shape}`);
  const ticker = `(while true; do echo tick >> ${tick}; sleep 0.2; done) &`;
  const escalate = { sandbox_permissions: 'danger-full-access', justification: 'writes outside the workspace' };
  const call = (command, extra = {}) => session.callTool('bash', { command, description: 'start a ticker outside', ...escalate, ...extra });
  if (shape === 'foreground') {
    const result = await call(`${ticker} sleep 0.5; echo started`);
    return { text: result.content[0].text, leftover: result.structuredContent?.leftover, ...(await afterEnd(tick, tick)) };
  }
  // Promoted at its timeout, or started in the background: the approved command runs on as a job, ticking, and ends
  // by itself once the ticker has shown it runs.
  const until_ticks = `until [ -s ${tick} ]; do sleep 0.1; done; sleep 1`;
  const result =
    shape === 'promoted'
      ? await call(`${ticker} ${until_ticks}; sleep 3; echo done`, { timeoutMs: 2000 })
      : await call(`${ticker} ${until_ticks}; echo done`, { run_in_background: true });
  const jobId = result.structuredContent.jobId;
  // What the console's task list shows for the job.
  const row = snapshot(runtime, timeline, undefined).jobs.find((j) => j.id === jobId);
  const tickedWhileRunning = await until(() => size(tick) > 0);
  const read = await session.callTool('job_output', { job_id: jobId, wait: true, timeout_ms: 60_000 });
  return { text: result.content[0].text, jobId, escalation: row?.escalation, tickedWhileRunning, read: read.content[0].text, ...(await afterEnd(tick, tick)) };
}

const facts = {};
const runtime = await createRuntime({
  sandbox: { mode: 'read-only', backend },
  approval: { policy: 'ask', request: async () => 'allowed-once' },
  executor: { threads: 2 },
});
const timeline = new Timeline(runtime);
const cases = ['read-only', 'workspace-write'].flatMap((mode) => ['foreground', 'promoted', 'background'].map((shape) => [mode, shape]));
const results = await Promise.all(cases.map(([mode, shape]) => scenario(runtime, mode, shape)));
cases.forEach(([mode, shape], i) => {
  facts[`${mode}/${shape}`] = results[i];
});
// The same ticker unconfined in the session's own danger-full-access mode: not an escalation, so it is kept (and
// shows the ticker would live on if nothing ended it).
const standingWs = join(base, 'standing');
mkdirSync(standingWs);
const plain = runtime.session({ id: 'standing', cwd: standingWs });
plain.setSandboxMode('danger-full-access');
const standingTick = join(side, 'tick-standing');
const standing = await plain.callTool('bash', { command: `(while true; do echo tick >> ${standingTick}; sleep 0.2; done) & echo started`, description: 'start a ticker outside' });
facts.standing = { text: standing.content[0].text, ...(await afterEnd(standingTick, standingTick)) };
await runtime.close();
facts.standingAfterClose = holding(standingTick);
console.log(JSON.stringify(facts));
