// Where `serve` gets its bearer token: --token-file, else SHELLRING_TOKEN, else none (the server generates one).
import { readFileSync } from 'node:fs';
import { checkTokenValue } from '../faces/http/token.js';
import { usageError } from './args.js';

export function tokenOption(file: string | boolean | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (typeof file === 'string') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw usageError(`cannot read --token-file '${file}': ${(error as Error).message}`, error);
    }
    // One trailing newline is what `echo ... > file` leaves; it is not part of the token.
    return judged(text.replace(/\r?\n$/, ''), `--token-file '${file}'`);
  }
  const value = env.SHELLRING_TOKEN;
  if (value !== undefined) return judged(value, 'SHELLRING_TOKEN');
  return undefined;
}

function judged(token: string, source: string): string {
  try {
    return checkTokenValue(token, source);
  } catch (error) {
    throw usageError((error as Error).message, error);
  }
}
