// What a confined command can read, under both read policies and both confining modes: another session's
// workspace, the credential stores, another process's command line, the kernel keyrings, its own spill file, and
// whether developer tools still run. Prints one JSON object of facts; the same probes run unconfined too, so each
// refusal is shown to be the sandbox's.
// Usage: node reads.mjs <backend> <workdir>   (env SHELLRING_PLANTS: a JSON list of planted credential files)
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const plants = JSON.parse(process.env.SHELLRING_PLANTS ?? '[]');
const ws = join(base, 'ws');
const other = join(base, 'other');
mkdirSync(ws, { recursive: true });
mkdirSync(other, { recursive: true });
writeFileSync(join(other, '.env'), 'OTHER_SESSION_SECRET=b-secret\n');
writeFileSync(join(ws, 'own.txt'), 'own-file\n');
execFileSync('git', ['init', '-q', ws]);

// A neighbour's command line holding a secret, as another session's command would (its own process here).
const neighbour = spawn('sleep', ['120'], { argv0: 'neighbour-secret-argument', stdio: 'ignore' });

// A key in this user's keyring, where the runtime's user keeps them (the kernel shares it with every process of
// the uid, confined or not).
const py = (code) => execFileSync('python3', ['-c', code], { encoding: 'utf8' }).trim();
const keyName = `shellring-plant-${process.pid}`;
const keyId = py(
  `import ctypes; l=ctypes.CDLL(None,use_errno=True); print(l.syscall(248, b"user", b"${keyName}", b"key-secret", 10, -4))`,
);

const probes = {
  otherWorkspace: `cat ${join(other, '.env')}`,
  shadow: 'head -c 5 /etc/shadow; echo',
  plants: plants.map((path) => `cat ${path}`).join('; ') || 'true',
  // A pattern that does not match its own text: only the neighbour's command line can.
  cmdline: 'grep -l "neighbour-secre[t]-argument" /proc/[0-9]*/cmdline 2>/dev/null | head -1; echo end',
  keyRead: `python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); b=ctypes.create_string_buffer(64); n=l.syscall(250, 11, ${keyId}, b, 64); print(b.value.decode() if n > 0 else "refused", ctypes.get_errno())'`,
  keyAdd: `python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print("added" if l.syscall(248, b"user", b"from-inside", b"x", 1, -4) > 0 else "refused")'`,
  home: 'ls -A /root /home 2>&1 | head -5; echo end',
};

const tools = {
  'read-only': 'cat own.txt && git status --short --branch && node -v && python3 -c 1 && echo tools-ok',
  'workspace-write':
    'git status --short --branch && node -v && python3 -c 1 && printf "int main(void){return 0;}\\n" > a.c && cc a.c -o a && ./a && printf "all:\\n\\t@echo made\\n" > Makefile && make && echo tools-ok',
};

const facts = {};
const call = async (session, command) => {
  const result = await session.callTool('bash', { command, description: 'probe' });
  return result.content[0].text;
};
try {
  for (const read of ['session', 'host']) {
    const runtime = await createRuntime({ sandbox: { mode: 'read-only', backend, read }, executor: { maxOutputBytes: 1000 } });
    for (const mode of ['read-only', 'workspace-write']) {
      const session = runtime.session({ id: `${read}-${mode}`, cwd: ws });
      session.setSandboxMode(mode);
      const out = {};
      for (const [name, command] of Object.entries(probes)) out[name] = await call(session, command);
      out.tools = await call(session, tools[mode]);
      // Output past the cap spills; the result names the file, which the command must be able to open.
      const spilled = await session.callTool('bash', { command: 'head -c 5000 /dev/zero | tr "\\0" s', description: 'spill' });
      const spillPath = spilled.structuredContent.stdout.spillPath;
      out.spillPathShown = spilled.content[0].text.includes(spillPath);
      out.ownSpill = await call(session, `wc -c < ${spillPath}`);
      facts[`${read}/${mode}`] = out;
    }
    await runtime.close();
  }
  const plain = await createRuntime();
  const session = plain.session({ id: 'plain', cwd: ws });
  facts.unconfined = {};
  for (const [name, command] of Object.entries(probes)) facts.unconfined[name] = await call(session, command);
  await plain.close();
} finally {
  neighbour.kill('SIGKILL');
  py(`import ctypes; l=ctypes.CDLL(None); l.syscall(250, 3, ${keyId})`);
}
facts.keyId = Number(keyId);
console.log(JSON.stringify(facts));
