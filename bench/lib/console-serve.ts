// One `shellring serve` process for the console figures: its address, token, an MCP client, and its RSS.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  token: string;
  signIn: string;
  client: Client;
  sessionId: string;
  rss(): number;
  close(): Promise<void>;
}

export async function startServe(cwd: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--cwd', cwd], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!/web console at \S+/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const url = /listening on (\S+)/.exec(stderr)![1]!;
  const token = /generated for this run\): (\S+)/.exec(stderr)![1]!;
  const signIn = /web console at (\S+)/.exec(stderr)![1]!;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'bench-console', version: '1.0.0' });
  await client.connect(transport);
  return {
    child,
    url,
    token,
    signIn,
    client,
    sessionId: transport.sessionId!,
    rss: () => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024,
    async close() {
      await client.close().catch(() => {});
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
