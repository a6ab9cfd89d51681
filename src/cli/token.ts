// Where `serve` gets its bearer token: --token-file, else SHELLRING_TOKEN, else the config file's serve.tokenFile,
// else none (the server generates one).
import { readFileSync } from 'node:fs';
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
  return judged(text.replace(/\r?\n$/, ''), source);
}

function judged(token: string, source: string): string {
  try {
    return checkTokenValue(token, source);
  } catch (error) {
    throw usageError((error as Error).message);
  }
}
