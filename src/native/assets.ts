// Locates the files shipped beside the addon: the runner executable and the compiled supervisor worker.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { loadBinding, loadedFrom, packageRoot } from './loader.js';
import { ShellringError } from '../errors.js';

/** shellring-runner lives next to the .node file that loaded (platform package or local build). */
export function runnerPath(): string {
  loadBinding();
  return checkRunner(path.join(path.dirname(loadedFrom()!), 'shellring-runner'));
}

/** Fails closed: a runner that is missing or not executable is an error before anything runs. */
export function checkRunner(file: string): string {
  try {
    accessSync(file, constants.X_OK);
  } catch (cause) {
    throw new ShellringError('SHELLRING_RUNNER_MISSING', `shellring: the runner executable ${file} is missing or not executable; reinstall the platform package or run \`npm run build:native\``, { cause });
  }
  return file;
}

/** Workers need compiled JavaScript (Node 22 strips types only from 22.18 on), so this is always the dist build. */
export function supervisorPath(): string {
  return path.join(packageRoot(), 'dist', 'workers', 'entry.cjs');
}
