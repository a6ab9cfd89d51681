// Escape attempts against a confined command, in both modes with the network denied, and the same descriptor and
// metadata probes unconfined. Prints one JSON object of facts: what each attack did, as the host saw it afterwards.
// Usage: node attacks.mjs <backend> <workdir>   (fd 20 may be a file opened for writing by the caller)
import { createServer } from 'node:net';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';
import { networkWitness } from './network-witness.mjs';

const [backend, base] = process.argv.slice(2);
const ws = join(base, 'ws');
const side = join(base, 'side');
mkdirSync(ws, { recursive: true });
mkdirSync(side, { recursive: true });
const node = process.execPath;

// Targets outside the workspace, owned by the user running the runtime.
const file = join(side, 'f');
writeFileSync(file, 'data\n');
chmodSync(file, 0o644);
const shell = join(side, 'bash');
copyFileSync('/bin/bash', shell);
chmodSync(shell, 0o755);
const xattrs = (path) => {
  try {
    return execFileSync('getfattr', ['-d', '--absolute-names', path], { encoding: 'utf8' }).trim();
  } catch (error) {
    return `getfattr failed: ${error.message}`;
  }
};
const metadata = () => {
  const f = statSync(file);
  const b = statSync(shell);
  return { mode: f.mode & 0o7777, uid: f.uid, mtime: f.mtimeMs, xattrs: xattrs(file), shellMode: b.mode & 0o7777 };
};
const before = metadata();

// Listeners the confined commands try to reach.
const unixPath = join(side, 'host.sock');
let unixConnections = 0;
const unixServer = createServer((s) => {
  unixConnections++;
  s.end('hello\n');
});
await new Promise((resolve) => unixServer.listen(unixPath, resolve));
chmodSync(unixPath, 0o777);
const network = await networkWitness();
const ipcs = () => execFileSync('ipcs', ['-m', '-q', '-s'], { encoding: 'utf8' }).split('\n').filter((l) => /^0x/.test(l)).sort();
const ipcBefore = ipcs();

const sysfs = '/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan';
const escapeDir = `/sys/fs/cgroup/pids/shellring-escape-${process.pid}`;
const attacks = {
  chmod: `chmod 777 ${file}`,
  setuid: `chmod u+s ${shell}`,
  utime: `touch -d 2001-01-01 ${file}`,
  xattr: `setfattr -n user.escape -v 1 ${file}`,
  chown: `chown 65534 ${file}`,
  // Writing back the current value: harmless if it lands, and it must not land.
  coreDump: 'cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern && echo wrote',
  hostname: 'cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname && echo wrote',
  sysfs: `cat ${sysfs} > ${sysfs} && echo wrote`,
  cgroupfs: `mkdir ${escapeDir} && echo made`,
  sysrq: 'if [ -e /proc/sysrq-trigger ]; then echo "" > /proc/sysrq-trigger && echo wrote; else echo absent; fi',
  unix: `${node} -e "require('net').connect('${unixPath}').on('data', () => console.log('connected'))"`,
  ...network.commands,
  ipc: 'ipcmk -M 4096 && ipcmk -Q && ipcmk -S 1',
  leakedFd: 'echo leaked >&20 && echo wrote',
  // Builtins only: no pipe or directory the shell opens for the probe itself shows up in the list.
  fds: 'for fd in $(seq 3 1023); do [ -e /proc/$$/fd/$fd ] && printf "%s " $fd; done; echo end',
};

async function attack(session) {
  const out = {};
  for (const [name, command] of Object.entries(attacks)) {
    const result = await session.callTool('bash', { command, description: `attack ${name}` });
    out[name] = { text: result.content[0].text, exitCode: result.structuredContent?.exitCode ?? null };
  }
  out.host = metadata();
  out.escapeDir = existsSync(escapeDir);
  return out;
}

const facts = { before };
const runtime = await createRuntime({
  sandbox: { mode: 'read-only', backend, network: 'deny' },
  executor: { maxOutputBytes: 1000 },
});

// Another session's spill file and private TMPDIR, made by a session in workspace-write.
const owner = runtime.session({ id: 'owner', cwd: ws });
owner.setSandboxMode('workspace-write');
const spilled = await owner.callTool('bash', {
  command: 'head -c 5000 /dev/zero | tr "\\0" s; echo "owner-secret" > "$TMPDIR/secret"; echo "$TMPDIR" >&2',
  description: 'spill and keep a temp file',
});
const spillPath = spilled.structuredContent.stdout.spillPath;
const ownerTmp = spilled.structuredContent.stderr.text.trim();
facts.owner = { spillPath, ownerTmp, spillReadable: existsSync(spillPath), tmpReadable: existsSync(join(ownerTmp, 'secret')) };
const peek = {
  spill: `cat ${spillPath} | head -c 20; echo`,
  spillDir: `ls -A ${join(spillPath, '..', '..')}`,
  tmp: `cat ${ownerTmp}/secret`,
  tmpDir: `ls -A ${join(ownerTmp, '..')}`,
};

for (const mode of ['read-only', 'workspace-write']) {
  const session = runtime.session({ id: `attacker-${mode}`, cwd: ws });
  session.setSandboxMode(mode);
  facts[mode] = await attack(session);
  for (const [name, command] of Object.entries(peek)) {
    const result = await session.callTool('bash', { command, description: `peek ${name}` });
    facts[mode][`peek_${name}`] = result.content[0].text;
  }
}
// Inside the writable roots, ordinary metadata changes keep working.
{
  const session = runtime.session({ id: 'inside', cwd: ws });
  session.setSandboxMode('workspace-write');
  const result = await session.callTool('bash', {
    command: 'printf "#!/bin/sh\\necho tool-ran\\n" > tool.sh && chmod +x tool.sh && ./tool.sh && touch -d 2001-01-01 tool.sh && date -r tool.sh +%Y && setfattr -n user.ok -v 1 tool.sh && getfattr -n user.ok --only-values tool.sh && echo && echo t > "$TMPDIR/x" && chmod 600 "$TMPDIR/x" && echo tmp-ok',
    description: 'change metadata inside the workspace',
  });
  facts.inside = result.content[0].text;
}
await runtime.close();
facts.ipcCreated = ipcs().filter((line) => !ipcBefore.includes(line));
facts.unixConnections = unixConnections;
Object.assign(facts, await network.end());

// Unconfined commands get descriptors 0-2 only as well.
{
  const rt = await createRuntime();
  const s = rt.session({ id: 'plain', cwd: ws });
  for (const name of ['leakedFd', 'fds']) {
    const result = await s.callTool('bash', { command: attacks[name], description: `unconfined ${name}` });
    facts[`unconfined_${name}`] = result.content[0].text;
  }
  await rt.close();
}
unixServer.close();
process.stdout.write(`${JSON.stringify(facts)}\n`);
