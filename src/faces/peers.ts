// The packages each face loads beyond the root's: optional peer dependencies, and the paragraph when one is missing.
import { ShellringError } from '../errors.js';
import { packageManifest } from '../native/loader.js';

/**
 * What `npm install shellring` leaves out, by the part that loads it (package.json lists them all as optional
 * peers): the MCP protocol (stdio and HTTP), the HTTP server's logs and metrics, the web console's browser files,
 * the Cordis plugins. `shellring/mcp` needs `mcp` and `http`; `shellring serve` needs `mcp`, `http` and `console`.
 */
export const FACE_PEERS = {
  mcp: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server'],
  http: ['pino', 'prom-client'],
  console: ['preact', 'htm', 'ansi_up'],
  cordis: ['cordis', 'schemastery'],
} as const;

export type Face = keyof typeof FACE_PEERS;

/** The package a module-not-found error names, when it is a bare package rather than a file. */
function missingPackage(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  return /Cannot find (?:package|module) '((?:@[^/']+\/)?[^/'.][^/']*)/.exec(String(message))?.[1];
}

/**
 * `error` as the one-paragraph SHELLRING_MISSING_DEPENDENCY when it says a package of one of `faces` is missing;
 * any other error as it is. `what` names the one that needed it; `command`, a CLI command, adds the npx form.
 */
export function facePeerError(error: unknown, what: string, faces: readonly Face[], command?: string): unknown {
  const missing = missingPackage(error);
  const wanted: readonly string[] = faces.flatMap((face) => FACE_PEERS[face]);
  if (missing === undefined || !wanted.includes(missing)) return error;
  const ranges = packageManifest().peerDependencies ?? {};
  const specs = wanted.map((name) => (ranges[name] ? `${name}@${ranges[name]}` : name));
  const npx = command ? `, or with npx: \`npx -p shellring ${specs.map((spec) => `-p ${spec}`).join(' ')} shellring ${command}\`` : '';
  return new ShellringError(
    'SHELLRING_MISSING_DEPENDENCY',
    `${what} needs the package ${missing}, which is not installed: it is an optional peer dependency of shellring, ` +
      `installed only where it is used. Fix: run \`npm install ${specs.join(' ')}\` beside shellring (with -g for a ` +
      `global one)${npx}.`,
    { cause: error },
  );
}
