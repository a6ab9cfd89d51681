// The sandboxing policy over an executor: per-call mode, workspace root, private temp dir, the runner's plan.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { executorErrors, workspaceRootErrors, type ReadViewFacts } from '../contract/index.js';
import { loadBinding } from '../native/loader.js';
import type { SandboxSpec, SpillPlace } from '../executor/types.js';
import { SANDBOX_MODES, type SandboxMode } from './modes.js';
import { backendUsable, type SandboxBackend } from './probe.js';
import { canonical, canonicalNow } from './workspace.js';
import { UNCONFINED, type ConfinementPlan } from '../executor/wire/plan.js';
import { DEFAULT_READ_DENY, hostReadPaths } from './read-policy.js';
import { settled, watchedVersion } from './watched.js';
import { rootLimitProblem, type RootLimits } from './writable-roots.js';
import { ShellringError } from '../errors.js';
import { STAND_INS } from '../env/non-interactive.js';
import { proxyEnv, proxyPolicy, type DomainsConfig, type NetworkConfig } from './network-config.js';
import { NETWORK_ASK_MS, routeNetworkAsks, type NetworkAsker } from './network-asks.js';
import type { NetworkBlock } from '../contract/index.js';

/** Distinguishes this process's runtimes at the one proxy: their session ids may repeat. */
let runtimes = 0;


export interface SandboxConfig {
  /** The deployment's standing mode. */
  mode: SandboxMode;
  backend: SandboxBackend;
  /** Modes govern file writes; network is a separate switch, allowed by default (see network.ts for domains). */
  network: NetworkConfig;
  /** With network 'deny': unix sockets still allowed (every named one the command can see). */
  allowUnixSockets: boolean;
  /** The bubblewrap executable, for backend 'bubblewrap'. */
  bwrapPath: string;
  /** What confined commands may read (default 'session'): see the config schema. */
  read?: 'session' | 'host';
  /** Read-only paths of the session view. */
  readAllow?: readonly string[];
  /** Paths never readable (default DEFAULT_READ_DENY): absolute, or `~/` under every home; `*` in the last part. */
  readDeny?: readonly string[];
}

/** One call's confinement: the runner's plan, extra environment, and the canonical workspace root. */
export interface Confinement {
  policy: SandboxSpec;
  env: Record<string, string>;
  root: string;
}

type ReadPolicy = Pick<ConfinementPlan, 'view' | 'readable' | 'denied'>;

interface KeptReadPolicy {
  /** The call's own inputs (mode, workspace, spill directory) and the environment's (PATH, HOME), joined. */
  inputs: string;
  /** `watchedVersion()` before it was derived: a change while it was read makes the next call derive it again. */
  version: number;
  policy: ReadPolicy;
}

export class Sandbox {
  readonly defaultMode: SandboxMode;
  readonly #config: SandboxConfig;
  readonly #runner: string;
  readonly #protected: string[];
  readonly #hidden: string[];
  readonly #spillDirFor: (sessionId: string | undefined) => SpillPlace | undefined;
  /** Commands run on other hosts: this host's files are not theirs (see `confine`). */
  readonly #remote: boolean;
  readonly #sessionModes = new Map<string, SandboxMode>();
  readonly #tmpDirs = new Map<string, Promise<string>>();
  /** Each session's last read policy, with what it was derived from (see `#keptReadPolicy`). */
  readonly #readPolicies = new Map<string, KeptReadPolicy>();
  /** The proxy's key prefix of this runtime's sessions. */
  readonly #netPrefix = `r${++runtimes}:`;
  /** Sessions whose domain policy differs from the configured one (`setSessionNetwork`). */
  readonly #sessionNetworks = new Map<string, DomainsConfig>();
  /** Sessions whose policy the proxy holds, with the configuration it was made from. */
  readonly #netPolicies = new Map<string, DomainsConfig>();
  /** Aborted when its session closes: a person is no longer asked about its connections. */
  readonly #askEnds = new Map<string, AbortController>();
  #unrouteAsks: (() => void) | undefined;
  #tmpRoot: Promise<string> | undefined;
  /** The canonical PATH directories and homes, with the PATH and homes they were resolved from. */
  #pathsKnown: { key: string; paths: Promise<[string[], string[]]> } | undefined;
  /** The fd holding the temp root's lock marker: a root nobody holds belongs to a runtime that died. */
  #tmpLock: number | undefined;
  /** The removal of dead runtimes' temp roots, running off the event loop from construction on. */
  readonly #reclaimed: Promise<number>;

  /**
   * `protectedPaths` hold the runtime's own state and code: no workspace-write root may hold or lie inside them
   * (see writable-roots.ts for the rest it is judged against). `hiddenPaths` (the spill
   * directories of every session) are more: a confined command sees them empty, but for its own session's spill
   * directory (`spillDirFor`), shown read-only so the paths in its results open. `remote`: the commands run on
   * other hosts (the SSH executor), whose runner completes each plan with that host's paths.
   */
  constructor(
    config: SandboxConfig,
    runnerPath: string,
    protectedPaths: string[],
    hiddenPaths: string[] = [],
    spillDirFor: (sessionId: string | undefined) => SpillPlace | undefined = () => undefined,
    remote = false,
  ) {
    this.#remote = remote;
    this.#config = config;
    this.defaultMode = config.mode;
    this.#runner = runnerPath;
    this.#protected = protectedPaths;
    this.#hidden = hiddenPaths;
    this.#spillDirFor = spillDirFor;
    // A SIGKILLed runtime never removes its temp root; the next one does, on a libuv thread (it may hold much).
    this.#reclaimed = loadBinding()
      .reclaimRootsInBackground(tmpdir())
      .catch(() => 0);
  }

  /** A directory confined commands see empty from now on (the server's own secrets, such as its token file's). */
  hide(path: string): void {
    this.#hidden.push(path);
  }

  /** Escalation targets are always the two wider modes; strict widening is checked per call. */
  get modes(): readonly SandboxMode[] {
    return SANDBOX_MODES;
  }

  /** What confined commands may read, as configured: the prompt's `Commands can read:` line and a read refusal
   * name it. */
  get readView(): ReadViewFacts {
    return { view: this.#config.read ?? 'session', readAllow: this.#config.readAllow ?? [] };
  }

  modeFor(sessionId: string | undefined): SandboxMode {
    return (sessionId && this.#sessionModes.get(sessionId)) || this.defaultMode;
  }

  setSessionMode(sessionId: string, mode: SandboxMode): void {
    this.#sessionModes.set(sessionId, mode);
  }

  /**
   * The confinement of one call in `mode` with the canonical workspace `root` (a session's pinned one).
   * For a remote host the plan carries only what holds on any host: the backend, network, view, the workspace
   * (a path on that host), the configured readable paths and the read-deny entries as written; that host's runner
   * (`--stdio`) expands the entries against its own homes, adds its session's temporary directory and hides the
   * others (crates/runner/src/stdio/policy.rs), and fails the call if the backend does not work there.
   * @throws ShellringError `SANDBOX_UNAVAILABLE` when no backend works (nothing may run unconfined), or
   * `SHELLRING_SANDBOX_ROOT` when the workspace root cannot be granted.
   */
  async confine(mode: SandboxMode, root: string, sessionId: string | undefined): Promise<Confinement> {
    // An approved escalation: wider than the session's own mode, for this call alone.
    const escalated = sessionId !== undefined && mode !== this.modeFor(sessionId);
    const oneShot = escalated ? { escalated } : {};
    if (mode === 'danger-full-access') return { policy: { mode, plan: UNCONFINED, ...oneShot }, env: {}, root };
    const { backend, bwrapPath, network, allowUnixSockets } = this.#config;
    if (!this.#remote && !(await backendUsable(backend, this.#runner, bwrapPath))) {
      throw new ShellringError('SANDBOX_UNAVAILABLE', executorErrors.sandboxUnavailable(mode));
    }
    // Other sessions' spill files and temporary directories: empty in this command's view.
    const hidden = this.#remote ? [] : [...this.#hidden, await this.#tmpRootDir()];
    const writable: string[] = [];
    const env: Record<string, string> = {};
    if (mode === 'workspace-write' && this.#remote) {
      await this.#checkRoot(root);
      writable.push(root);
    } else if (mode === 'workspace-write') {
      await this.#checkRoot(root);
      const tmp = await this.#tmpFor(sessionId);
      writable.push(root, tmp);
      env.TMPDIR = tmp;
      // The home directory is out of view (or read-only): caches go to the session's own TMPDIR, so package
      // managers (npm ci, pip) work in the session view and their caches last as long as the session.
      env.XDG_CACHE_HOME = join(tmp, '.cache');
      env.npm_config_cache = join(tmp, '.npm');
    }
    // Its own spill directory is shown once it exists (a bind needs it), unless it could not be made.
    const spill = this.#spillDirFor(sessionId);
    const spillDir = spill && (await spill.made) === undefined ? spill.dir : undefined;
    const domains = this.#domainsFor(sessionId);
    if (domains) Object.assign(env, proxyEnv());
    const plan: ConfinementPlan = {
      ...UNCONFINED,
      backend,
      ...(backend === 'bubblewrap' ? { bwrapPath } : {}),
      network: domains ? 'domains' : network === 'allow' ? 'allow' : allowUnixSockets ? 'deny-except-unix' : 'deny',
      writable,
      hidden,
      ...(await this.#keptReadPolicy(sessionId, mode, root, spillDir)),
    };
    // The session's own mode runs in the session's sandbox; an escalated call gets a sandbox of its own. A remote
    // host completes the plan with its own paths, so only a local plan says all a command can read. A domains call
    // outside its session's sandbox has no way out: its runner allows it no socket.
    const shared = sessionId !== undefined && !escalated;
    const complete = this.#remote ? {} : { viewComplete: true };
    const netKey = domains && shared ? this.#netKey(sessionId, domains) : undefined;
    return { policy: { mode, plan, ...(shared ? { shared } : {}), ...oneShot, ...complete, ...(netKey ? { netKey } : {}) }, env, root };
  }

  /** The session's domain policy, or undefined when the network is not by name (remote hosts have no proxy). */
  #domainsFor(sessionId: string | undefined): DomainsConfig | undefined {
    const network = this.#config.network;
    if (typeof network !== 'object' || this.#remote) return undefined;
    return (sessionId && this.#sessionNetworks.get(sessionId)) || network;
  }

  /** The session's key at the proxy, whose policy is set (again, when it changed) before its sandbox serves. */
  #netKey(sessionId: string, domains: DomainsConfig): string {
    const key = this.#netPrefix + sessionId;
    if (this.#netPolicies.get(sessionId) !== domains) {
      loadBinding().netSetPolicy(key, proxyPolicy(domains));
      this.#netPolicies.set(sessionId, domains);
    }
    return key;
  }

  /** Who is asked about a host a session's domain policy does not list, where the policy asks (unset: nobody). */
  onNetworkAsk(ask: NetworkAsker): void {
    if (!this.#domainsFor(undefined)) return;
    this.#unrouteAsks?.();
    this.#unrouteAsks = routeNetworkAsks(this.#netPrefix, (sessionId, host, port) => {
      const ends = this.#askEnds.get(sessionId) ?? new AbortController();
      this.#askEnds.set(sessionId, ends);
      return ask(sessionId, host, port, AbortSignal.any([ends.signal, AbortSignal.timeout(NETWORK_ASK_MS)]));
    });
  }

  /** Replaces one session's domain policy, live: its next connection is judged by it. Only in domains mode. */
  setSessionNetwork(sessionId: string, domains: DomainsConfig): void {
    this.#sessionNetworks.set(sessionId, domains);
    if (this.#netPolicies.has(sessionId)) this.#netKey(sessionId, domains);
  }

  /** The session's domain policy, for what the prompt says commands can reach. */
  networkFor(sessionId: string | undefined): NetworkConfig {
    return this.#domainsFor(sessionId) ?? this.#config.network;
  }

  /** Where the session's refusals stand now (undefined outside domains mode): pass it to `networkBlocked`. */
  networkMark(sessionId: string | undefined): number | undefined {
    if (sessionId === undefined || !this.#netPolicies.has(sessionId)) return this.#domainsFor(sessionId) ? 0 : undefined;
    return loadBinding().netLastRefusal(this.#netPrefix + sessionId);
  }

  /** The connections refused for the session since `mark`, each host and port once, in order. */
  networkBlocked(sessionId: string | undefined, mark: number | undefined): NetworkBlock[] | undefined {
    if (mark === undefined || sessionId === undefined || !this.#netPolicies.has(sessionId)) return undefined;
    const seen = new Set<string>();
    const blocked: NetworkBlock[] = [];
    for (const { host, port, reason, line } of loadBinding().netRefusals(this.#netPrefix + sessionId, mark)) {
      if (seen.has(line)) continue;
      seen.add(line);
      blocked.push({ host, port, reason });
    }
    return blocked.length ? blocked : undefined;
  }

  /** `#readPolicy`, derived again only when its inputs or what it read from the filesystem changed. */
  async #keptReadPolicy(sessionId: string | undefined, mode: SandboxMode, root: string, spill: string | undefined): Promise<ReadPolicy> {
    if (this.#remote) return this.#readPolicy(mode, root, spill);
    await settled();
    const inputs = [mode, root, spill ?? '', process.env.PATH ?? '', homedir()].join('\0');
    const version = watchedVersion();
    const known = this.#readPolicies.get(sessionId ?? '');
    if (known?.inputs === inputs && known.version === version) return known.policy;
    const policy = await this.#readPolicy(mode, root, spill);
    this.#readPolicies.set(sessionId ?? '', { inputs, version, policy });
    return policy;
  }

  /** The read policy's part of the plan: the view, what it shows read-only, and the denied paths. */
  async #readPolicy(mode: SandboxMode, root: string, spill: string | undefined): Promise<ReadPolicy> {
    const session = (this.#config.read ?? 'session') === 'session';
    if (this.#remote) {
      const shown = session ? [...(mode === 'read-only' && root !== sep ? [root] : []), ...(this.#config.readAllow ?? [])] : [];
      return { view: session ? 'session' : 'host', readable: shown, denied: [...(this.#config.readDeny ?? DEFAULT_READ_DENY)] };
    }
    const found = await hostReadPaths(this.#config.readDeny ?? DEFAULT_READ_DENY);
    const shown: string[] = [];
    if (spill) shown.push(spill);
    if (session) {
      // A read-only command's workspace is its working directory (the whole filesystem is never one).
      if (mode === 'read-only' && root !== sep) shown.push(root);
      // A toolchain directory never brings the runtime's own state (DSH_HOME, spill files) into view.
      const clear = (dir: string) => !this.#protected.some((p) => p === dir || p.startsWith(dir + sep) || dir.startsWith(p + sep));
      shown.push(...(this.#config.readAllow ?? []), ...found.toolchains.filter(clear));
      // The stand-ins the environment names for editors and password prompts (see env/non-interactive.ts).
      shown.push(STAND_INS);
      if (found.resolver) shown.push(found.resolver);
    }
    return { view: session ? 'session' : 'host', readable: shown, denied: found.denied };
  }

  /** Removes the session's temp directory off the event loop (a command may have left large files there). */
  async closeSession(sessionId: string): Promise<void> {
    this.#sessionModes.delete(sessionId);
    this.#sessionNetworks.delete(sessionId);
    this.#askEnds.get(sessionId)?.abort();
    this.#askEnds.delete(sessionId);
    if (this.#netPolicies.delete(sessionId)) loadBinding().netDetach(this.#netPrefix + sessionId);
    this.#readPolicies.delete(sessionId);
    const made = this.#tmpDirs.get(sessionId);
    this.#tmpDirs.delete(sessionId);
    const dir = await made?.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    this.#unrouteAsks?.();
    for (const ends of this.#askEnds.values()) ends.abort();
    for (const sessionId of this.#netPolicies.keys()) loadBinding().netDetach(this.#netPrefix + sessionId);
    this.#netPolicies.clear();
    await this.#reclaimed;
    const root = await this.#tmpRoot?.catch(() => undefined);
    if (root) await rm(root, { recursive: true, force: true });
    if (this.#tmpLock !== undefined) loadBinding().closeFd(this.#tmpLock);
    this.#tmpLock = undefined;
  }

  async #checkRoot(root: string): Promise<void> {
    // Resolved off the event loop by the first call that needs it (the synchronous path is the CLI's, at startup).
    home ??= await canonicalNow(homedir());
    // `root` is canonical already (pinned at the session's open, or resolved for this call).
    const why = canonicalRootProblem(root) ?? rootLimitProblem(root, await this.#rootLimits());
    if (why) throw new ShellringError('SHELLRING_SANDBOX_ROOT', workspaceRootErrors.refused(root, why));
  }

  /** What a root is judged against, canonical; on another host only the system's trees (the rest are this host's). */
  async #rootLimits(): Promise<RootLimits> {
    if (this.#remote) return { own: [], path: [], homes: [] };
    const [{ homes: found }, tmpRoot] = await Promise.all([hostReadPaths(this.#config.readDeny ?? DEFAULT_READ_DENY), this.#tmpRootDir()]);
    // Resolved again only when PATH or the homes changed.
    const key = [process.env.PATH ?? '', ...found].join('\0');
    if (this.#pathsKnown?.key !== key) {
      const canonicals = (dirs: readonly string[]) => Promise.all(dirs.map(canonicalNow));
      const path = (process.env.PATH ?? '').split(':').filter((dir) => dir.startsWith(sep));
      this.#pathsKnown = { key, paths: Promise.all([canonicals(path), canonicals(found)]) };
    }
    const [path, homeDirs] = await this.#pathsKnown.paths;
    return { own: [...this.#protected, tmpRoot], path, homes: homeDirs };
  }

  /** The parent of every session's temporary directory (created once, 0700, locked while this runtime lives). */
  #tmpRootDir(): Promise<string> {
    this.#tmpRoot ??= mkdtemp(join(tmpdir(), 'shellring-tmp-')).then((root) => {
      this.#tmpLock = loadBinding().lockSpillRoot(root);
      return root;
    });
    return this.#tmpRoot;
  }

  /** A private, per-session temporary directory, never shared with the runtime's own state. */
  #tmpFor(sessionId: string | undefined): Promise<string> {
    const key = sessionId ?? '';
    let dir = this.#tmpDirs.get(key);
    if (!dir) {
      const name = `session-${this.#tmpDirs.size + 1}`;
      dir = this.#tmpRootDir().then(async (root) => {
        const path = join(root, name);
        await mkdir(path, { mode: 0o700 });
        return path;
      });
      this.#tmpDirs.set(key, dir);
    }
    return dir;
  }
}

/** Why `dir` can never be a writable workspace root (the whole filesystem, the home directory, a system tree), if
 * it cannot. */
export function workspaceRootProblem(dir: string): string | undefined {
  const root = canonical(dir);
  return canonicalRootProblem(root) ?? rootLimitProblem(root, { own: [], path: [], homes: [] });
}

/** The home directory, resolved once: a confined call's checks never wait on the disk after the first's. */
let home: string | undefined;

function canonicalRootProblem(root: string): string | undefined {
  if (root === sep) return workspaceRootErrors.wholeFilesystem;
  if (root === (home ??= canonical(homedir()))) return workspaceRootErrors.home;
  return undefined;
}
