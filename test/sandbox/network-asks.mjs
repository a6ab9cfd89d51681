// Hosts a domain policy does not list, put to a person: curl in a session's sandbox against a real server on the
// host's loopback, a scripted approval channel answering each request, and what the model and the channel saw.
// Prints one JSON object of facts.
// Usage: node network-asks.mjs <backend> <base>
import { createServer } from 'node:http';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });
const web = createServer((req, res) => res.end(`hello ${req.url}\n`));
const port = await new Promise((resolve) => web.listen(0, '127.0.0.1', () => resolve(web.address().port)));
const names = ['web.test', 'once.test', 'always.test', 'many.test', 'evil.test', 'nobody.test', 'closing.test', 'job.test'];
const testHostMap = Object.fromEntries(names.map((name) => [name, '127.0.0.1']));

/** Every request the channel saw, and how each host is answered (a function of the request, or an outcome). */
const asked = [];
const answers = {};
const request = async (req) => {
  asked.push({ kind: req.kind, sessionId: req.sessionId, host: req.host, port: req.port, reason: req.reason });
  const answer = answers[req.host] ?? 'rejected';
  return typeof answer === 'function' ? answer(req) : answer;
};
const runtime = await createRuntime({
  sandbox: { mode: 'workspace-write', backend, network: { mode: 'domains', allow: ['web.test'], deny: ['evil.test'], ask: true, testHostMap } },
  approval: { request },
});
const session = runtime.session({ id: 'asks', cwd: ws });
const curl = (host, path) => `curl -sS http://${host}:${port}/${path}`;
async function run(command) {
  const result = await session.callTool('bash', { command, description: 'network probe', timeoutMs: 120_000 });
  return { text: result.content[0].text, blocked: result.structuredContent?.networkBlocked ?? null };
}
const askedFor = (host) => asked.filter((a) => a.host === host).length;
const facts = { port, prompt: session.promptSections().find((s) => s.name === 'tool:bash:sandbox').text };

// Allowed once: this connection goes through, the next one asks again (and is refused).
answers['once.test'] = 'allowed-once';
facts.once = await run(curl('once.test', 'once'));
answers['once.test'] = 'rejected';
facts.onceAgain = await run(curl('once.test', 'again'));
facts.onceAsked = askedFor('once.test');

// Allowed for the session: asked once, then every connection to that host and port goes through.
answers['always.test'] = 'allowed-always';
facts.always = await run(`${curl('always.test', 'a')}; ${curl('always.test', 'b')}`);
facts.alwaysLater = await run(curl('always.test', 'c'));
facts.alwaysAsked = askedFor('always.test');

// A denied host is refused at once; nobody is asked.
facts.denied = await run(curl('evil.test', 'x'));
facts.deniedAsked = askedFor('evil.test');

// Ten connections at once to one unlisted host share one request: the answer comes only once all ten wait on it (a
// connection still reading its request when the answer comes would ask again). The threads of the connections before
// them end first, so that only these ten are counted. Each wait is bounded well inside the harness's own limit, so a
// proxy that never holds them fails a test, not the run.
await until(() => connectionThreads().all === 0);
answers['many.test'] = async () => {
  await until(() => connectionThreads().waiting >= 10);
  facts.manyWaiting = connectionThreads().waiting;
  return 'allowed-once';
};
facts.many = await run(`for i in $(seq 10); do ${curl('many.test', 'm')} & done; wait`);
facts.manyAsked = askedFor('many.test');

// A background job's connection asks as well.
answers['job.test'] = 'allowed-once';
const job = await session.callTool('bash', { command: curl('job.test', 'job'), description: 'background probe', run_in_background: true });
facts.job = (await session.callTool('job_output', { job_id: job.structuredContent.jobId, wait: true, timeout_ms: 60_000 })).content[0].text;

// A session whose channel cannot reach anyone: refused, and the result says so.
const lonely = runtime.session({ id: 'lonely', cwd: join(base, 'lonely') });
mkdirSync(join(base, 'lonely'), { recursive: true });
lonely.setApprovalChannel(async () => 'unavailable');
const lonelyResult = await lonely.callTool('bash', { command: curl('nobody.test', 'n'), description: 'nobody to ask', timeoutMs: 60_000 });
facts.nobody = { text: lonelyResult.content[0].text, blocked: lonelyResult.structuredContent?.networkBlocked ?? null };

// A session closed while its person is asked: the request is aborted and the connection refused.
const closing = runtime.session({ id: 'closing', cwd: join(base, 'closing') });
mkdirSync(join(base, 'closing'), { recursive: true });
let abortedRequest;
const waiting = new Promise((resolve) => {
  answers['closing.test'] = (req) =>
    new Promise((settle) => {
      resolve();
      req.signal.addEventListener('abort', () => {
        abortedRequest = true;
        settle('cancelled');
      });
    });
});
const closingCall = closing.callTool('bash', { command: curl('closing.test', 'c'), description: 'closing while asked', timeoutMs: 60_000 });
// A connection let through without asking ends the call first.
await Promise.race([waiting, closingCall]);
await closing.close();
facts.closing = { aborted: abortedRequest === true, text: (await closingCall).content[0].text };

facts.asked = asked;
await runtime.close();
web.close();
console.log(JSON.stringify(facts));
process.exit(0);

/** Resolves once `done()` holds, or after a minute. */
async function until(done) {
  const deadline = Date.now() + 60_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The proxy's connection threads in this process, and how many of them wait for a person's answer: the proxy names
 * a connection's thread `netproxy-ask` while it waits on a question. */
function connectionThreads() {
  let all = 0;
  let waiting = 0;
  for (const task of readdirSync('/proc/self/task')) {
    let name;
    try {
      name = readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim();
    } catch {
      continue; // The thread ended meanwhile.
    }
    if (name === 'netproxy-conn' || name === 'netproxy-ask') all++;
    if (name === 'netproxy-ask') waiting++;
  }
  return { all, waiting };
}
