// `serve` refuses a token file that group or others can read or change (whoever reads it can run commands as the
// server), naming the mode and the chmod; a private file is taken.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = join(import.meta.dirname, '../../dist/src/cli/main.js');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-token-file-')));
const TOKEN = 'a-private-token-of-32-characters';

describe('serve --token-file', () => {
  it.each(['0644', '0640', '0604', '0620'])('refuses mode %s', (octal) => {
    const mode = parseInt(octal, 8);
    const file = join(work, `token-${mode.toString(8)}`);
    writeFileSync(file, `${TOKEN}\n`);
    // Set after writing: the umask would clear some of these bits at creation.
    chmodSync(file, mode);
    const result = spawnSync(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work, '--token-file', file], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: `shellring serve: refusing --token-file '${file}': group or others can read or change it (mode 0${mode.toString(8)}), and whoever reads the token can run commands as this server; run chmod 600 '${file}'\nRun 'shellring serve --help' for usage.\n`,
    });
  });

  it('serves with a file only its owner can read', async () => {
    const file = join(work, 'token-600');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work, '--token-file', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
        child.stderr.on('data', () => {
          if (stderr.includes('web console at')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', () => reject(new Error(`serve exited: ${stderr}`)));
      });
      expect(stderr).not.toContain('refusing');
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('close', resolve));
    }
  });
});
