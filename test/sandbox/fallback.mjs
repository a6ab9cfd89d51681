// The seccomp fallback, where no namespace can be made: the script re-runs itself in a user namespace whose limits
// allow no further mount or user namespace (the host's own limits stay untouched), then runs confined commands
// there under the Landlock backend. Prints one JSON object of facts.
// Usage: node fallback.mjs landlock <workdir>
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { rerunWithoutNamespaces } from './without-namespaces.mjs';

const [backend, base] = process.argv.slice(2);
rerunWithoutNamespaces();

const { createRuntime } = await import('../../dist/src/index.js');
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });
// A SysV segment of the host (this namespace shares the host's IPC namespace), reachable by its id alone.
const shmid = Number(
  execFileSync('python3', ['-c', 'import ctypes; l=ctypes.CDLL(None); print(l.shmget(0, 4096, 0o1666))'], { encoding: 'utf8' }).trim(),
);
const attach = `python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); l.shmat.restype=ctypes.c_void_p; a=l.shmat(${shmid},None,0); print("attached" if a not in (None, ctypes.c_void_p(-1).value) else "refused"); b=ctypes.create_string_buffer(128); print("stat" if l.shmctl(${shmid},2,b)==0 else "refused")'`;
const facts = { shmid };
try {
  for (const read of ['session', 'host']) {
    const runtime = await createRuntime({ sandbox: { mode: 'workspace-write', backend, read } });
    const session = runtime.session({ id: read, cwd: ws });
    const result = await session.callTool('bash', { command: `echo ran; ${attach}`, description: 'fallback' });
    facts[read] = { text: result.content[0].text, sandbox: result.structuredContent?.sandbox ?? null, isError: result.isError ?? false };
    await runtime.close();
  }
  const plain = await createRuntime();
  const result = await plain.session({ id: 'plain', cwd: ws }).callTool('bash', { command: attach, description: 'unconfined' });
  facts.unconfined = result.content[0].text;
  await plain.close();
} finally {
  execFileSync('python3', ['-c', `import ctypes; l=ctypes.CDLL(None); l.shmctl(${shmid}, 0, None)`]);
}
console.log(JSON.stringify(facts));
