// A process flood in one session, with a second session working beside it; prints one JSON object of facts.
// Usage: node limits.mjs <backend> <workdir>
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });
const LIMIT = 40;
const marker = `shellring-flood-${process.pid}`;
// perl reports a refused fork at once; bash would retry it for half a minute.
const flood = `perl -e 'my $n = 0; for (1..300) { my $p = fork(); last unless defined $p; if (!$p) { sleep 60; exit } $n++ } print "$n\\n"' ${marker}; sleep 60`;
// The command's own processes: the sandbox's wrappers (bwrap, the runner) carry the command in their arguments
// but are not the command's, and which of them is alive at a given moment depends on the backend.
const alive = () =>
  execFileSync('ps', ['-eo', 'comm=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !/^(bwrap|shellring-runne?r?)\s/.test(line)).length;

const facts = {};
const runtime = await createRuntime({ sandbox: { mode: 'workspace-write', backend }, executor: { limits: { processes: LIMIT } } });
facts.containment = runtime.executor.cgroups.containment;
const flooder = runtime.session({ id: 'flooder', cwd: ws });
const neighbour = runtime.session({ id: 'neighbour', cwd: ws });
const started = await flooder.callTool('bash', { command: flood, description: 'start a process flood', run_in_background: true });
const jobId = started.structuredContent.jobId;
// Wait for the flood to report how many processes it got.
let read = '';
for (let i = 0; i < 200 && !/^\d+$/m.test(read); i++) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  read += `${(await flooder.callTool('job_output', { job_id: jobId })).content[0].text}\n`;
}
facts.forked = Number(/^(\d+)$/m.exec(read)?.[1] ?? -1);
facts.aliveDuring = Number(alive());
const beside = await neighbour.callTool('bash', { command: 'for i in 1 2 3 4 5; do (true); done; echo neighbour-ok', description: 'work beside the flood' });
facts.neighbour = beside.content[0].text;
await flooder.close();
facts.aliveAfterSessionClose = Number(alive());
await runtime.close();
facts.limit = LIMIT;
process.stdout.write(`${JSON.stringify(facts)}\n`);
