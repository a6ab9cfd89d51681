// Each default readDeny entry where a view would otherwise show it: the host view, the session view with a home in
// readAllow, and the session view showing a home's ~/.cargo because it is on PATH. For every path probed, one line:
// its type, its filesystem's type, what it lists and its first bytes. Prints one JSON object of facts.
// Usage: node read-deny.mjs <backend> <workdir>   (env SHELLRING_READ_DENY: {home, probes: [paths]})
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const { home, probes } = JSON.parse(process.env.SHELLRING_READ_DENY);
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });

const line = (path) =>
  `printf '%s|%s|%s|%s\\n' "$(stat -c %F ${path} 2>&1)" "$(stat -f -c %T ${path} 2>&1)" "$(ls -A ${path} 2>&1 | tr '\\n' ' ')" "$(head -c 40 ${path} 2>/dev/null | tr '\\n' ' ')"`;
const command = probes.map(line).join('; ');

const configs = {
  host: { read: 'host' },
  'session-readAllow': { readAllow: [home] },
  // The runtime's PATH names the home's ~/.cargo/bin: the session view shows ~/.cargo (and ~/.rustup) read-only.
  'session-toolchain': {},
};
const facts = {};
const path = process.env.PATH;
for (const [name, sandbox] of Object.entries(configs)) {
  process.env.PATH = name === 'session-toolchain' ? `${join(home, '.cargo', 'bin')}:${path}` : path;
  const runtime = await createRuntime({ sandbox: { mode: 'read-only', backend, ...sandbox } });
  const result = await runtime.session({ id: name, cwd: ws }).callTool('bash', { command, description: 'probe the denied paths' });
  facts[name] = result.content[0].text.split('\n').slice(0, probes.length);
  await runtime.close();
}
process.env.PATH = path;
console.log(JSON.stringify(facts));
