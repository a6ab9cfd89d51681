// Resolves DSH_HOME: the configured value, else a non-blank $DSH_HOME, else ~/.dsh; always absolute.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function resolveDshHome(configured?: string, env: NodeJS.ProcessEnv = process.env): string {
  const ambient = env.DSH_HOME?.trim() ? env.DSH_HOME : undefined;
  return resolve(configured ?? ambient ?? join(homedir(), '.dsh'));
}
