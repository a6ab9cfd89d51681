// The host's abstract unix sockets under network allow (the default): a host service listens on `@name`; confined
// commands, in the session's own sandbox and in an escalated call's sandbox of its own, try to connect, while a
// command's own abstract socket still works and an unconfined command still reaches the host's. Prints one JSON
// object of facts. Usage: node abstract-sockets.mjs <backend> <workdir>
import { createServer } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const node = process.execPath;
const name = `\0shellring-host-service-${process.pid}`;
const received = [];
const service = createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', (data) => {
    received.push(String(data));
    socket.end('pong');
  });
});
await new Promise((resolve) => service.listen(name, resolve));

const connect = (tag) =>
  `${node} -e "const s = require('net').connect('\\0${name.slice(1)}'); s.on('connect', () => s.write('${tag}')); s.on('data', (d) => console.log('reached:' + d)); s.on('error', (e) => console.log(e.code))"`;
const own = `${node} -e "const net = require('net'); const n = '\\0own-' + process.pid; const srv = net.createServer((c) => c.end('own-ok')); srv.listen(n, () => net.connect(n).on('data', (d) => { console.log(String(d)); srv.close(); }))"`;

const facts = {};
const runtime = await createRuntime({ sandbox: { backend }, approval: { policy: 'ask', request: async () => 'allowed-once' } });
const call = async (session, command, extra = {}) => {
  const result = await session.callTool('bash', { command, description: 'reach an abstract socket', ...extra });
  return { text: result.content[0].text, enforcement: result.structuredContent?.sandbox?.enforcement };
};
for (const mode of ['read-only', 'workspace-write']) {
  const ws = join(base, mode);
  mkdirSync(ws, { recursive: true });
  const session = runtime.session({ id: mode, cwd: ws });
  session.setSandboxMode(mode);
  facts[mode] = { host: await call(session, connect(`session-${mode}`)), again: await call(session, connect(`again-${mode}`)), own: await call(session, own) };
}
// An escalated call runs in a sandbox of its own; full access runs unconfined and reaches the service.
const ro = runtime.sessions().find((session) => session.id === 'read-only');
const escalate = (to) => ({ sandbox_permissions: to, justification: 'reach the host service' });
facts.escalated = await call(ro, connect('escalated'), escalate('workspace-write'));
facts.unconfined = await call(ro, connect('unconfined'), escalate('danger-full-access'));
await runtime.close();
service.close();
facts.received = received;
console.log(JSON.stringify(facts));
