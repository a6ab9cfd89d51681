// Many sessions at once under network by name: each session's commands open connections to an allowed host and to
// a host of their own that is refused, all at the same time, and each refusal must be named in its own session's
// result only. Prints one JSON object of facts.
// Usage: node network-sessions.mjs <backend> <base>
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';

const [backend, base] = process.argv.slice(2);
const SESSIONS = 50;
const CONNECTIONS = 20;
let served = 0;
const web = createServer((_req, res) => {
  served++;
  res.end('ok\n');
});
const port = await new Promise((resolve) => web.listen(0, '127.0.0.1', () => resolve(web.address().port)));
const runtime = await createRuntime({
  sandbox: { mode: 'workspace-write', backend, network: { mode: 'domains', allow: ['web.test'], testHostMap: { 'web.test': '127.0.0.1' } } },
});
// Half the connections reach the allowed host, half ask for the session's own refused name; all at once.
const command = (i) =>
  `for n in $(seq ${CONNECTIONS / 2}); do curl -s -o /dev/null -w '%{http_code}\\n' http://web.test:${port}/ & curl -s -o /dev/null -w '%{http_code}\\n' http://s${i}.test:${port}/ & done; wait`;
const results = await Promise.all(
  Array.from({ length: SESSIONS }, async (_, i) => {
    const cwd = join(base, `s${i}`);
    mkdirSync(cwd);
    const session = runtime.session({ id: `s${i}`, cwd });
    const result = await session.callTool('bash', { command: command(i), description: 'many connections', timeoutMs: 300_000 });
    const codes = result.content[0].text.split('\n').filter((line) => /^\d{3}$/.test(line));
    return { codes: { ok: codes.filter((c) => c === '200').length, refused: codes.filter((c) => c === '403').length }, blocked: result.structuredContent?.networkBlocked ?? [] };
  }),
);
await runtime.close();
web.close();
console.log(JSON.stringify({ results, served }));
process.exit(0);
