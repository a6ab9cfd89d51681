// The one composition path: createRuntime and the Cordis plugins build the executor, the DSH_* environment, the
// sandbox and the job registry here, so each part is put together (and defaulted) once.
import { dirname } from 'node:path';
import { executorErrors } from '../contract/index.js';
import { parseConfig, ShellringError } from '../errors.js';
import { resolveDshHome } from '../env/dsh-home.js';
import { EnvRegistry, type EnvRegistryOptions } from '../env/registry.js';
import type { ExecutorConfigInput } from '../executor/config.js';
import { LocalExecutor } from '../executor/local.js';
import { RemoteExecutor } from '../executor/remote/executor.js';
import type { Executor } from '../executor/types.js';
import { loadBinding, packageRoot } from '../native/loader.js';
import type { JobRegistryOptions } from '../jobs/options.js';
import { JobRegistry } from '../jobs/registry.js';
import { sandboxConfigSchema, type SandboxConfigInput } from '../sandbox/config.js';
import { Sandbox } from '../sandbox/sandbox.js';
import { canonical } from '../sandbox/workspace.js';
import { runtimeCode } from '../sandbox/writable-roots.js';

export type { PromptSection } from '../tools/prompt-sections.js';

/**
 * The executor; and the host process becomes non-dumpable first, for good: the commands it starts run as the same
 * user, and its /proc/<pid>/environ (every secret of the deployment) and memory are closed to them from now on. Its
 * allocator gives large freed blocks back at once (output passes through it in 64 KiB pieces), unless the operator
 * set glibc's threshold themselves.
 */
export function assembleExecutor(config: ExecutorConfigInput = {}): Executor {
  const binding = loadBinding();
  binding.setNonDumpable();
  if (process.env.MALLOC_MMAP_THRESHOLD_ === undefined) binding.releaseLargeBlocks();
  return config.kind === 'ssh' ? new RemoteExecutor(config) : new LocalExecutor(config);
}

/** The DSH_* registry; a blank `dshHome` counts as none (then $DSH_HOME, else ~/.dsh). */
export function assembleEnv(options: { dshHome?: string; locateSessionJsonl?: EnvRegistryOptions['locateSessionJsonl'] } = {}): EnvRegistry {
  const configured = options.dshHome?.trim() ? options.dshHome : undefined;
  return new EnvRegistry({ dshHome: resolveDshHome(configured), locateSessionJsonl: options.locateSessionJsonl });
}

/**
 * The sandbox over `executor`. No workspace-write root may hold or lie inside the runtime's own state (spill files,
 * DSH_HOME) or its own code (the runner and addon, the package and its dependencies, node's installation): a confined
 * command could replace what the next runtime runs unconfined. Every session's spill files are hidden from confined commands, but for the command's
 * own session's (read-only).
 */
export function assembleSandbox(config: SandboxConfigInput, executor: Executor, dshHome: string): Sandbox {
  const parsed = parseConfig(sandboxConfigSchema, config, 'sandbox config');
  // A remote host holds none of this runtime's state or code: its runner fills in that host's paths.
  if (executor instanceof RemoteExecutor) return new Sandbox(parsed, '', [], [], () => undefined, true);
  const host = executor.sandboxHost;
  if (!host) throw new ShellringError('SHELLRING_INVALID_CONFIG', executorErrors.noSandboxHost);
  const spills = host.spillRoot;
  const own = [spills, dshHome, dirname(host.runnerPath), packageRoot(), dirname(process.execPath)].map(canonical);
  own.push(...runtimeCode(packageRoot(), process.execPath));
  return new Sandbox(parsed, host.runnerPath, own, [spills], (sessionId) => host.spillDirFor(sessionId));
}

/** The job registry over the executor's capture backend, which holds every job's output. */
export function assembleJobs(executor: Executor, options: JobRegistryOptions = {}): JobRegistry {
  return new JobRegistry(executor.capture, options);
}
