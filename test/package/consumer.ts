// What the package tests share: this host's platform name, and the environment of a consumer that has no Rust.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The napi platform name of this host, e.g. linux-x64-gnu. */
export function hostPlatform(): string {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux') return base;
  const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header;
  return `${base}-${header.glibcVersionRuntime ? 'gnu' : 'musl'}`;
}

/**
 * The environment of a machine that installs the package but has no Rust: no cargo/rustc on PATH, none of the
 * npm_* settings of the `npm test` that runs this file (its prefix would send a nested install to the repository),
 * and no SHELLRING_* override that could point the loader at the repository's build.
 */
export function consumerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|cargo|rustup|napi_rs_|shellring_)/i.test(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && !['cargo', 'rustc', 'rustup'].some((tool) => existsSync(join(dir, tool))))
    .join(delimiter);
  env.npm_config_audit = 'false';
  env.npm_config_fund = 'false';
  env.npm_config_update_notifier = 'false';
  return env;
}
