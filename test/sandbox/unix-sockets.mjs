// Network deny with allowUnixSockets: confined commands reach named unix sockets (on the host, outside and inside the
// workspace) and exchange bytes, while TCP, UDP and the host's abstract sockets stay out of reach; the same sockets
// without the option are refused. Prints one JSON object of facts.
// Usage: node unix-sockets.mjs <backend> <workdir>
import { connect, createServer } from 'node:net';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';
import { networkWitness } from './network-witness.mjs';

const [backend, base] = process.argv.slice(2);
const ws = join(base, 'ws');
const side = join(base, 'side');
mkdirSync(ws, { recursive: true });
mkdirSync(side, { recursive: true });
const node = process.execPath;

/** A listener that answers `pong:<what it read>` and keeps what each client sent. */
async function unixListener(path) {
  const received = [];
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (data) => {
      received.push(data.toString());
      socket.end(`pong:${data}`);
    });
  });
  await new Promise((resolve) => server.listen(path, resolve));
  if (!path.startsWith('\0')) chmodSync(path, 0o777);
  return { server, received };
}

const outside = await unixListener(join(side, 'host.sock'));
const inside = await unixListener(join(ws, 'inside.sock'));
const abstractName = `\0shellring-abstract-${process.pid}`;
const abstract = await unixListener(abstractName);
const network = await networkWitness();

// A client that sends `ping-<tag>` and prints the reply, or the error code when it cannot connect.
const client = (path, tag) =>
  `${node} -e "const s = require('net').connect(process.argv[1]); s.on('connect', () => s.write('ping-${tag}')); s.on('data', (d) => process.stdout.write(d + '\\n')); s.on('error', (e) => { console.log(e.code); process.exitCode = 1; })" ${JSON.stringify(path)}`;
// A server bound inside the workspace by the command itself, and its own client.
const own = `${node} -e "const net = require('net'); const p = 'own.sock'; const srv = net.createServer((c) => c.end('own-ok')); srv.on('error', (e) => { console.log(e.code); process.exit(1); }); srv.listen(p, () => net.connect(p).on('data', (d) => { console.log(String(d)); srv.close(); }))"; rm -f own.sock`;

async function probe(allowUnixSockets, mode) {
  // The host's socket lies outside the workspace: readAllow shows it in the session view.
  const runtime = await createRuntime({ sandbox: { mode, backend, network: 'deny', allowUnixSockets, readAllow: [side] } });
  const session = runtime.session({ id: `unix-${mode}`, cwd: ws });
  const tag = `${mode}-${allowUnixSockets ? 'allowed' : 'denied'}`;
  const commands = {
    outside: client(join(side, 'host.sock'), `outside-${tag}`),
    inside: client(join(ws, 'inside.sock'), `inside-${tag}`),
    abstract: `${node} -e "require('net').connect('\\0${abstractName.slice(1)}').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))"`,
    own,
    ...network.commands,
  };
  const out = {};
  for (const [name, command] of Object.entries(commands)) {
    const result = await session.callTool('bash', { command, description: `unix sockets ${name}` });
    out[name] = { text: result.content[0].text, exitCode: result.structuredContent?.exitCode ?? null };
  }
  await runtime.close();
  return out;
}

const facts = {};
for (const mode of ['read-only', 'workspace-write']) {
  facts[mode] = { allowed: await probe(true, mode), denied: await probe(false, mode) };
}
Object.assign(facts, await network.end());
facts.received = { outside: [...outside.received].sort(), inside: [...inside.received].sort(), abstract: [...abstract.received] };
// The listeners work from the host: each refusal above was the sandbox's doing.
const fromHost = (path) =>
  new Promise((resolve) => {
    const s = connect(path, () => s.write('host'));
    s.on('data', (d) => resolve(String(d)));
    s.on('error', (e) => resolve(e.code));
  });
facts.hostReach = { outside: await fromHost(join(side, 'host.sock')), abstract: await fromHost(abstractName) };
for (const { server } of [outside, inside, abstract]) server.close();
process.stdout.write(`${JSON.stringify(facts)}\n`);
