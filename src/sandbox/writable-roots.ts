// Where a workspace-write root may never be: anywhere a confined command could plant code or configuration that the
// runtime or the host later runs unconfined (the runtime's own files, the system's trees, PATH, a home's
// dot-directories), nor above one of them. Pure: the sandbox gathers the canonical paths, this judges one root against them.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { workspaceRootErrors } from '../contract/index.js';

/**
 * Trees the host runs programs or reads their configuration from: the system's programs and libraries (`/usr` with
 * `/usr/local`, `/bin`, `/sbin`, `/lib*`, `/opt`, `/boot`), its configuration (`/etc`), the state its services and
 * package manager execute (`/var/lib`: dpkg's maintainer scripts, systemd, containers; `/var/spool`: cron tables),
 * its runtime directory (`/run`: units and sockets) and the kernel's surfaces (`/proc`, `/sys`, `/dev`). Data places
 * (`/srv`, `/var/www`, `/mnt`, `/home`) are not in it: projects live there.
 */
export const SYSTEM_TREES = [
  '/etc',
  '/usr',
  '/opt',
  '/boot',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/var/lib',
  '/var/spool',
  '/run',
  '/proc',
  '/sys',
  '/dev',
] as const;

/** What a root is judged against; every path canonical and absolute. */
export interface RootLimits {
  /** The runtime's own state and code (spill and temp roots, DSH_HOME, package, dependencies, runner, node): a root
   * may neither hold one nor lie inside one. */
  own: readonly string[];
  /** The directories of the runtime's PATH (`/` and the homes themselves aside): a root may neither be nor hold one. */
  path: readonly string[];
  /** The host's home directories: a root may neither be nor hold one, nor lie inside one of their dot-directories. */
  homes: readonly string[];
}

/** Why the canonical `root` may not be writable, if it may not. */
export function rootLimitProblem(root: string, limits: RootLimits): string | undefined {
  const within = (dir: string) => root === dir || root.startsWith(dir + sep);
  const holds = (dir: string) => dir === root || dir.startsWith(root + sep);
  const tree = SYSTEM_TREES.find(within);
  if (tree) return workspaceRootErrors.system(tree);
  // `/` holds everything and is refused before this, with its own reason.
  const held = SYSTEM_TREES.find((dir) => root !== sep && holds(dir));
  if (held) return workspaceRootErrors.holdsSystem(held);
  for (const own of limits.own) {
    if (holds(own)) return workspaceRootErrors.ownFiles(own);
    if (within(own)) return workspaceRootErrors.insideOwn(own);
  }
  const home = limits.homes.find((dir) => dir !== sep && holds(dir));
  if (home) return workspaceRootErrors.holdsHome(home);
  const onPath = limits.path.find((dir) => dir !== sep && !limits.homes.includes(dir) && holds(dir));
  if (onPath) return workspaceRootErrors.onPath(onPath);
  for (const home of limits.homes) {
    if (!root.startsWith(home + sep)) continue;
    const top = root.slice(home.length + 1).split(sep)[0]!;
    if (top.startsWith('.')) return workspaceRootErrors.homeConfig(home + sep + top);
  }
  return undefined;
}

/**
 * The runtime's code beside its package (startup only: synchronous): the outermost `node_modules` above the package
 * (every dependency npm or pnpm installed with it), each dependency where it really is (a link may lead out of that
 * tree), and node's own installation (the parent of its bin directory, where lib/node_modules holds npm) unless the
 * system's trees hold it already.
 */
export function runtimeCode(pkg: string, execPath: string): string[] {
  const code: string[] = [];
  const parts = pkg.split(sep);
  const modules = parts.indexOf('node_modules');
  if (modules > 0) code.push(parts.slice(0, modules + 1).join(sep));
  let dependencies: string[] = [];
  try {
    dependencies = Object.keys((JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies ?? {});
  } catch {
    // No readable manifest: the package's own tree is all that is known.
  }
  for (const name of dependencies) {
    for (let dir = pkg; ; dir = dirname(dir)) {
      const found = join(dir, 'node_modules', name);
      if (existsSync(found)) {
        code.push(realpathSync(found));
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  code.push(dirname(dirname(realpathSync(execPath))));
  const system = (dir: string) => dir === sep || SYSTEM_TREES.some((tree) => dir === tree || dir.startsWith(tree + sep));
  return [...new Set(code)].filter((dir) => !system(dir));
}
