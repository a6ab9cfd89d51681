// Executor configuration: one zod schema validates it once and fills the contract's defaults.
import { z } from 'zod';
import { envPolicySchema } from '../env/policy.js';
import { parseConfig } from '../errors.js';
import { sshExecutorShape } from './ssh-options.js';

export const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

export const executorConfigSchema = z
  .object({
    cwd: z.string().min(1).optional().describe('Working directory of a call whose session names none (default: the host working directory).'),
    timeoutMs: z.number().int().positive().default(120_000).describe('Default command timeout, in milliseconds.'),
    maxTimeoutMs: z.number().int().positive().default(600_000).describe('Largest timeout a call may ask for, in milliseconds.'),
    maxOutputBytes: z.number().int().nonnegative().default(64_000).describe('Tail kept in memory per stream, in bytes; the model sees at most this much of each stream.'),
    maxSpillBytes: z.number().int().nonnegative().default(2 * GIB).describe('Largest spill file per stream, in bytes. A stream that outgrows its tail is written whole to a spill file up to this size; past it the file is removed and the result says (unavailable).'),
    graceMs: z.number().int().nonnegative().default(3_000).describe('Between SIGTERM and SIGKILL to the command\'s process group, in milliseconds.'),
    drainMs: z.number().int().nonnegative().default(250).describe('How long a settled command\'s pipes may stay open (a descendant holding them) before the call returns.'),
    threads: z.number().int().min(1).max(64).default(2).describe('Supervisor worker threads; each supervises any number of commands at once (there is no per-worker cap).'),
    spillRoot: z.string().min(1).optional().describe('Where the runtime\'s private 0700 spill directory is created. Default: the OS temporary directory.'),
    sessionSpillQuota: z.number().int().nonnegative().default(4 * GIB).describe('Spill bytes one session may hold on disk; a call that starts past it gets no spill file.'),
    runnerPath: z.string().min(1).optional().describe('The shellring-runner executable; default: the one shipped beside the native addon.'),
    keepSpills: z.boolean().default(false).describe('Keep spill files after their session closes.'),
    limits: z
      .object({
        processes: z.number().int().positive().nullable().default(1024).describe('Processes one session may run at once (null: no limit).'),
        memoryBytes: z.number().int().positive().nullable().default(null).describe('Memory one session may use, in bytes, where cgroups allow (null: no limit).'),
        cpuWeight: z.number().int().min(1).max(10_000).nullable().default(null).describe('CPU weight of a session, 1-10000 (cpu.weight on cgroup v2, cpu.shares on v1); any weight makes sessions share CPU time as wholes (null: the default).'),
        commandsCpuWeight: z.number().int().min(1).max(10_000).nullable().default(100).describe('CPU weight of all the runtime\'s commands together, 1-10000, in a cgroup of their own (cpu.weight on cgroup v2, cpu.shares on v1, where the cpu controller is writable): hundreds of busy commands then weigh as one, so the event loop is not starved. On v1 they sit beside this process, which weighs 1000, in a cgroup pair that weighs against the host\'s other work as two ordinary processes; on v2 they weigh against this process\'s threads and the host\'s other work (docs/architecture.md, "Scheduling"). null: commands compete one by one.'),
      })
      .strict()
      .default({ processes: 1024, memoryBytes: null, cpuWeight: null, commandsCpuWeight: 100 })
      .describe('Per-session resource limits: cgroup v2 where delegated, v1 pids/memory/cpu where writable, else RLIMIT_NPROC.'),
    env: envPolicySchema.default(envPolicySchema.parse({})).describe('Which host environment variables commands inherit (docs/environment.md).'),
    ...sshExecutorShape,
  })
  .strict()
  .refine((config) => config.kind !== 'ssh' || (config.hosts?.length ?? 0) > 0, { path: ['hosts'], error: 'kind ssh needs at least one host' });

export type ExecutorConfigInput = z.input<typeof executorConfigSchema>;
export type ExecutorConfig = z.output<typeof executorConfigSchema>;

/** Validates once; a bad field is a clear error naming the field. */
export function parseExecutorConfig(input: ExecutorConfigInput = {}): ExecutorConfig {
  return parseConfig(executorConfigSchema, input, 'executor config');
}
