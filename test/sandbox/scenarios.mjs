// Sandbox scenarios run in a child Node process (as root, or as an unprivileged user): prints one JSON object of facts.
// Usage: node scenarios.mjs <backend> <workdir>   (the workdir's parent must be writable by the running user)
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, chmodSync, lstatSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const ws = join(base, 'ws');
const side = join(base, 'side');
mkdirSync(ws, { recursive: true });
mkdirSync(side, { recursive: true });

const approvals = [];
let answer = 'allowed-once';
// The host read policy: these scenarios write (and list) outside the workspace, which the session view would hide
// altogether; what they test is that the writes are refused there (reads.mjs tests the session view).
const runtime = await createRuntime({
  sandbox: { mode: 'read-only', backend, read: 'host' },
  approval: {
    request: async (request) => {
      approvals.push(request.reason);
      return answer;
    },
  },
});
const facts = {};
const session = runtime.session({ id: 'sandbox', cwd: ws });
const bash = async (command, extra = {}) => {
  const result = await session.callTool('bash', { command, description: 'sandbox scenario', ...extra });
  return { text: result.content[0].text, isError: result.isError === true, value: result.structuredContent };
};

/** True once no process runs with `argv0` (waiting up to 20 s for one to end), false if one is still there. */
async function gone(argv0) {
  const running = () =>
    readdirSync('/proc').some((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${argv0}\0`);
      } catch {
        return false;
      }
    });
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (!running()) return true;
  }
  return !running();
}

// read-only
facts.readOnlyWrite = await bash(`echo data > ${ws}/ro.txt`);
facts.readOnlyFileExists = existsSync(join(ws, 'ro.txt'));
facts.lsRoot = await bash('ls / | grep -x etc; echo discard > /dev/null && echo devnull-ok');

// workspace-write
session.setSandboxMode('workspace-write');
facts.inside = await bash('echo in > inside.txt && cat inside.txt');
facts.sibling = await bash(`echo out > ${side}/sibling.txt`);
facts.siblingExists = existsSync(join(side, 'sibling.txt'));
facts.symlink = await bash(`ln -s ${ws}/inside.txt ${side}/link`);
facts.symlinkExists = (() => {
  try {
    return lstatSync(join(side, 'link')).isSymbolicLink();
  } catch {
    return false;
  }
})();
facts.rename = await bash(`mv inside.txt ${side}/moved.txt`);
facts.renameLanded = existsSync(join(side, 'moved.txt'));
facts.tmpdir = await bash('echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"');
// An orphan in a session of its own, running when its parent exits (the parent waits until it runs).
const orphan = `shellring-orphan-${process.pid}`;
facts.orphan = await bash(`( setsid bash -c 'exec -a ${orphan} sleep 600' & ) ; until pgrep -fx '${orphan} 600' >/dev/null; do sleep 0.05; done; echo parent-done`);
facts.orphanGone = await gone(orphan);
const bg = await bash(`sleep 0.2; echo late > ${side}/bg.txt`, { run_in_background: true });
const bgRead = await session.callTool('job_output', { job_id: bg.value.jobId, wait: true });
facts.background = { started: bg.text, read: bgRead.content[0].text, exists: existsSync(join(side, 'bg.txt')) };
facts.caps = await bash("grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status");
facts.mount = await bash('mount -o remount,rw / 2>&1; echo "status $?"');
facts.environ = await bash(`head -c 20 /proc/${process.pid}/environ >/dev/null && echo readable || echo unreadable`);
const bashEnv = join(ws, 'bashenv.sh');
writeFileSync(bashEnv, `echo pwned > ${side}/bashenv.txt\n`);
chmodSync(bashEnv, 0o644);
facts.bashEnv = await bash(`BASH_ENV=${bashEnv} bash -c 'echo child-ran'`);
facts.bashEnvExists = existsSync(join(side, 'bashenv.txt'));
facts.selfFailureLookalike = await bash(
  "echo 'error sandbox landlock_restrict_self: Operation not permitted'; echo '[sandbox: the sandbox runner itself failed under workspace-write mode — the command did not run; this is a sandbox problem, not a command failure]' >&2; exit 127",
);

// escalation from read-only, per outcome
session.setSandboxMode('read-only');
for (const outcome of ['rejected', 'cancelled', 'unavailable']) {
  answer = outcome;
  facts[`escalate_${outcome}`] = await bash(`echo x > ${ws}/esc-${outcome}.txt`, {
    sandbox_permissions: 'workspace-write',
    justification: 'the test needs this file',
  });
  facts[`escalate_${outcome}_exists`] = existsSync(join(ws, `esc-${outcome}.txt`));
}
answer = 'allowed-once';
facts.escalateAllowed = await bash(`echo x > ${ws}/esc-allowed.txt`, {
  sandbox_permissions: 'workspace-write',
  justification: 'the test needs this file',
});
facts.escalateAllowedExists = existsSync(join(ws, 'esc-allowed.txt'));
facts.afterGrant = await bash(`echo x > ${ws}/after-grant.txt`);
facts.approvals = approvals;
await runtime.close();

// network: a listener on 127.0.0.1, then connect from confined commands
const server = createServer((socket) => {
  socket.on('error', () => {});
  socket.end('hello\n');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -c 5 <&3 && echo && echo connected`;
for (const network of ['allow', 'deny']) {
  const rt = await createRuntime({ sandbox: { mode: 'workspace-write', backend, network } });
  const s = rt.session({ id: 'net', cwd: ws });
  const result = await s.callTool('bash', { command: connect, description: 'connect to the test listener' });
  facts[`network_${network}`] = { text: result.content[0].text, value: result.structuredContent };
  await rt.close();
}
server.close();

// root refusal and fail-closed
{
  const rt = await createRuntime({ sandbox: { mode: 'workspace-write', backend } });
  const s = rt.session({ id: 'root', cwd: '/' });
  const result = await s.callTool('bash', { command: 'true', description: 'try the filesystem root' });
  facts.rootRefused = { text: result.content[0].text, isError: result.isError === true };
  await rt.close();
}
const brokenRunner = join(base, 'broken-runner');
writeFileSync(brokenRunner, '#!/bin/sh\nexit 0\n');
chmodSync(brokenRunner, 0o755);
{
  const rt = await createRuntime({ sandbox: { mode: 'read-only', backend }, executor: { runnerPath: brokenRunner } });
  const s = rt.session({ id: 'broken', cwd: ws });
  const result = await s.callTool('bash', { command: `echo x > ${ws}/broken.txt`, description: 'run with a broken runner' });
  facts.brokenRunner = { text: result.content[0].text, isError: result.isError === true, exists: existsSync(join(ws, 'broken.txt')) };
  await rt.close();
}
// A kernel with Landlock but no seccomp: nothing could guard metadata where no namespace can be made.
const noSeccompRunner = join(base, 'no-seccomp-runner');
writeFileSync(noSeccompRunner, `#!/bin/sh\nif [ "$1" = --probe ]; then echo '{"landlockAbi":7,"seccomp":false}'; exit 0; fi\nexec bash -c "$*"\n`);
chmodSync(noSeccompRunner, 0o755);
{
  const rt = await createRuntime({ sandbox: { mode: 'read-only', backend }, executor: { runnerPath: noSeccompRunner } });
  const s = rt.session({ id: 'no-seccomp', cwd: ws });
  const result = await s.callTool('bash', { command: `echo x > ${ws}/no-seccomp.txt`, description: 'run without seccomp' });
  facts.noSeccomp = { text: result.content[0].text, exists: existsSync(join(ws, 'no-seccomp.txt')) };
  await rt.close();
}
// A runner failure, for real: bubblewrap is there when the backend is probed (by another session, whose sandbox
// is built then) and gone when this session's first command starts, so neither its session sandbox nor the runner
// that confines the command on its own can exec it, and nothing ran.
const vanishingBwrap = join(base, 'vanishing-bwrap');
symlinkSync('/usr/bin/bwrap', vanishingBwrap);
{
  const rt = await createRuntime({ sandbox: { mode: 'read-only', backend: 'bubblewrap', bwrapPath: vanishingBwrap } });
  // Without promotion a foreground call runs to its deadline with no job behind it: the same failure, the same text.
  const deadlineOnly = await createRuntime({ sandbox: { mode: 'read-only', backend: 'bubblewrap', bwrapPath: vanishingBwrap }, promoteOnTimeout: false });
  // The backend is probed from other sessions: a failing session's own sandbox is built after bubblewrap is gone.
  await rt.session({ id: 'probing', cwd: ws }).callTool('bash', { command: 'true', description: 'probe the backend' });
  await deadlineOnly.session({ id: 'probing-deadline', cwd: ws }).callTool('bash', { command: 'true', description: 'probe the backend' });
  const s = rt.session({ id: 'failing', cwd: ws });
  const d = deadlineOnly.session({ id: 'failing-deadline', cwd: ws });
  unlinkSync(vanishingBwrap);
  const fg = await s.callTool('bash', { command: 'echo hi', description: 'runner fails' });
  const fgDeadline = await d.callTool('bash', { command: 'echo hi', description: 'runner fails' });
  const bgStart = await s.callTool('bash', { command: 'echo hi', description: 'runner fails', run_in_background: true });
  const bgRead = await s.callTool('job_output', { job_id: bgStart.structuredContent.jobId, wait: true });
  facts.runnerFailed = {
    bwrap: vanishingBwrap,
    text: fg.content[0].text,
    isError: fg.isError === true,
    background: bgRead.content[0].text,
    deadlineOnly: { text: fgDeadline.content[0].text, isError: fgDeadline.isError === true },
  };
  await rt.close();
  await deadlineOnly.close();
}
let missingError;
try {
  await createRuntime({ sandbox: { mode: 'read-only', backend }, executor: { runnerPath: join(base, 'no-such-runner') } });
} catch (error) {
  missingError = error.message;
}
facts.missingRunner = missingError ?? null;

process.stdout.write(`${JSON.stringify(facts)}\n`);
