// Where `serve` gets its bearer token: --token-file, else SHELLRING_TOKEN, else the config file's serve.tokenFile,
// else none (the server generates one).
import { readFileSync, statSync } from 'node:fs';
import { checkTokenValue } from '../faces/http/token.js';
import { usageError } from './args.js';

export function tokenOption(flag: string | boolean | undefined, env: NodeJS.ProcessEnv, configured?: string): string | undefined {
  if (typeof flag === 'string') return fromFile(flag, `--token-file '${flag}'`);
  const value = env.SHELLRING_TOKEN;
  if (value !== undefined) return judged(value, 'SHELLRING_TOKEN');
  if (configured !== undefined) return fromFile(configured, `serve.tokenFile '${configured}'`);
  return undefined;
}

function fromFile(file: string, source: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${source}: ${(error as Error).message}`);
  }
  // One trailing newline is what `echo ... > file` leaves; it is not part of the token.
  const token = judged(text.replace(/\r?\n$/, ''), source);
  private_(file, source);
  return token;
}

/**
 * Refused, not warned about: whoever can read the token can run any command as this server, and a warning scrolls
 * by in a log while the server keeps serving. The fix is one chmod.
 */
function private_(file: string, source: string): void {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  const octal = mode.toString(8).padStart(4, '0');
  throw usageError(
    `refusing ${source}: group or others can read or change it (mode ${octal}), and whoever reads the token can run commands as this server; run chmod 600 '${file}'`,
  );
}

function judged(token: string, source: string): string {
  try {
    return checkTokenValue(token, source);
  } catch (error) {
    throw usageError((error as Error).message);
  }
}
