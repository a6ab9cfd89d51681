// A throwaway npm registry for the install tests: Verdaccio in a child process on loopback, its storage in a given directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

export interface Registry {
  /** The registry URL, e.g. http://127.0.0.1:41234/ */
  url: string;
  /** A user-level npmrc holding a token allowed to publish. */
  npmrc: string;
  close(): Promise<void>;
}

/** The packages this pack publishes are served from local storage only, never looked up upstream (the name may be
 * someone else's on npmjs.org); everything else is proxied, so the root's own dependencies install as usual. */
function config(dir: string, local: string[]): string {
  const packages = local.map((name) => `  '${name}':\n    access: $all\n    publish: $authenticated\n`).join('');
  return `storage: ${join(dir, 'storage')}
auth:
  htpasswd:
    file: ${join(dir, 'htpasswd')}
    max_users: 1
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    timeout: 60s
    # One test run installs several times: metadata fetched once serves them all.
    maxage: 30m
packages:
${packages}  '**':
    access: $all
    proxy: npmjs
log: { type: stdout, format: json, level: warn }
`;
}

/** Starts Verdaccio and registers one user; `local` names the packages that must never come from upstream. */
export async function startRegistry(dir: string, local: string[]): Promise<Registry> {
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, config(dir, local));
  // Port 0 and the bound address printed back: no port is guessed, so parallel runs never collide.
  const script = `
    const { runServer } = require(${JSON.stringify(require.resolve('verdaccio'))});
    runServer(${JSON.stringify(configFile)}).then((app) => {
      const server = app.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
    });
  `;
  const child = spawn(process.execPath, ['-e', script], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /^listening (\d+)$/m.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('exit', (code) => reject(new Error(`verdaccio exited (${code}) before listening:\n${out}${err}`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  const registry = { url, npmrc: join(dir, 'npmrc'), close: () => stop(child) };
  try {
    // CouchDB-style sign-up, what `npm adduser` does; the answer carries the token npm then sends.
    const response = await fetch(`${url}-/user/org.couchdb.user:release`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'release', password: 'release-password' }),
    });
    const body = (await response.json()) as { token?: string };
    if (!response.ok || !body.token) throw new Error(`verdaccio refused the user: ${response.status} ${JSON.stringify(body)}`);
    writeFileSync(registry.npmrc, `//127.0.0.1:${port}/:_authToken=${body.token}\n`);
  } catch (error) {
    await registry.close();
    throw error;
  }
  return registry;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    // Nothing of the registry outlives the test: a server slow to stop on SIGTERM gets SIGKILL.
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
