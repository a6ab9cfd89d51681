// Network by name where no namespace can be made: the script re-runs itself in a user namespace whose limits allow
// no further mount or user namespace, then asks a session for a command under the domain mode, which must not run.
// Prints one JSON object of facts.
// Usage: node network-fallback.mjs <backend> <workdir>
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { rerunWithoutNamespaces } from './without-namespaces.mjs';

const [backend, base] = process.argv.slice(2);
rerunWithoutNamespaces();

const { createRuntime } = await import('../../dist/src/index.js');
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });
const runtime = await createRuntime({ sandbox: { mode: 'workspace-write', backend, read: 'host', network: { mode: 'domains', allow: ['example.org'] } } });
const session = runtime.session({ id: 'fallback', cwd: ws });
const result = await session.callTool('bash', { command: 'echo ran > ran.txt; echo ran', description: 'domains without a namespace' });
await runtime.close();
console.log(JSON.stringify({ text: result.content[0].text, isError: result.isError === true, ran: spawnSync('test', ['-e', join(ws, 'ran.txt')]).status === 0 }));
