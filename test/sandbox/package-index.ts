// A local Python package index for the network tests: pypiserver (from the interop venv, which test/interop/install.sh
// keeps) serving one wheel built here, on a loopback port.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installClients } from '../interop/helpers.js';
import { until } from '../helpers/until.js';
import { freePort } from '../../bench/lib/sshd.js';

export interface PackageIndex {
  port: number;
  stop(): Promise<void>;
}

/** The one package it serves, `shellring-net-probe` 1.0.0, as a wheel. */
export const WHEEL = 'shellring_net_probe-1.0.0-py3-none-any.whl';

const WHEEL_SCRIPT = `
import base64, hashlib, sys, zipfile
info = 'shellring_net_probe-1.0.0.dist-info'
files = {
    'shellring_net_probe/__init__.py': b"MESSAGE = 'downloaded through the proxy'\\n",
    info + '/METADATA': b'Metadata-Version: 2.1\\nName: shellring-net-probe\\nVersion: 1.0.0\\n',
    info + '/WHEEL': b'Wheel-Version: 1.0\\nGenerator: shellring-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
}
digest = lambda data: base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
record = [f'{name},sha256={digest(data)},{len(data)}' for name, data in files.items()] + [info + '/RECORD,,']
files[info + '/RECORD'] = ('\\n'.join(record) + '\\n').encode()
with zipfile.ZipFile(sys.argv[1], 'w') as wheel:
    for name, data in files.items():
        wheel.writestr(name, data)
`;

export async function startPackageIndex(): Promise<PackageIndex> {
  await installClients();
  const dir = mkdtempSync(join(tmpdir(), 'shellring-pypi-'));
  writeFileSync(join(dir, 'make-wheel.py'), WHEEL_SCRIPT);
  const packages = join(dir, 'packages');
  mkdirSync(packages);
  execFileSync('python3', [join(dir, 'make-wheel.py'), join(packages, WHEEL)]);
  const port = await freePort();
  const server = spawn(
    join(import.meta.dirname, '..', 'interop', 'python', '.venv', 'bin', 'pypi-server'),
    ['run', '-p', String(port), '-i', '127.0.0.1', packages],
    { stdio: 'ignore' },
  );
  await until(async () => (await fetch(`http://127.0.0.1:${port}/simple/`).catch(() => undefined))?.ok === true, 60_000, 'pypiserver to answer');
  return {
    port,
    async stop() {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
