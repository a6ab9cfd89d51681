// Root-only files under the trees a view shows read-only, read by confined commands under both read policies and
// both confining modes (in the session's sandbox and in an escalated call's own), beside a world-readable file and a
// root-only file of the workspace itself; the same reads unconfined. Prints one JSON object of facts.
// Usage: node root-only.mjs <backend> <workdir>   (env SHELLRING_ROOT_ONLY: {secrets: [paths], public: path})
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const { secrets, public: open } = JSON.parse(process.env.SHELLRING_ROOT_ONLY);
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });
writeFileSync(join(ws, 'own-secret'), 'own-file\n', { mode: 0o600 });

// Per file one word (a file the view does not show at all would say `missing`), then the two readable files' text.
const probe = (path) =>
  `if why=$(head -c 1 ${path} 2>&1 >/dev/null); then echo read; else case "$why" in *'Permission denied'*) echo refused;; *) echo missing;; esac; fi`;
const reads = [...secrets.map(probe), `cat ${open} own-secret`].join('; ');
const facts = {};
for (const read of ['session', 'host']) {
  const runtime = await createRuntime({ sandbox: { backend, read }, approval: { policy: 'ask', request: async () => 'allowed-once' } });
  for (const mode of ['read-only', 'workspace-write']) {
    const session = runtime.session({ id: `${read}-${mode}`, cwd: ws });
    session.setSandboxMode(mode);
    const call = async (extra = {}) => (await session.callTool('bash', { command: reads, description: 'read root-only files', ...extra })).content[0].text;
    facts[`${read}/${mode}`] = await call();
    if (mode === 'read-only') facts[`${read}/escalated`] = await call({ sandbox_permissions: 'workspace-write', justification: 'a sandbox of its own' });
  }
  await runtime.close();
}
const plain = await createRuntime();
facts.unconfined = (await plain.session({ id: 'plain', cwd: ws }).callTool('bash', { command: reads, description: 'read root-only files' })).content[0].text;
await plain.close();
console.log(JSON.stringify(facts));
