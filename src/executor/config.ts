// Executor configuration: one zod schema validates it once and fills the contract's defaults.
import { z } from 'zod';
import { envPolicySchema } from '../env/policy.js';
import { ShellringError } from '../errors.js';

export const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

export const executorConfigSchema = z
  .object({
    /** Default working directory when a request names none. */
    cwd: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().default(120_000),
    maxTimeoutMs: z.number().int().positive().default(600_000),
    /** Tail cap per stream, in bytes. */
    maxOutputBytes: z.number().int().nonnegative().default(64_000),
    /** Largest spill file per stream, in bytes: a 1 GiB stream keeps its whole file. */
    maxSpillBytes: z.number().int().nonnegative().default(2 * GIB),
    /** Between SIGTERM and SIGKILL. */
    graceMs: z.number().int().nonnegative().default(3_000),
    /** How long a settled command's pipes may stay open (a descendant holding them) before the call returns. */
    drainMs: z.number().int().nonnegative().default(250),
    /** Supervisor worker threads; each supervises any number of commands at once (there is no per-worker cap). */
    threads: z.number().int().min(1).max(64).default(2),
    /** Where the runtime's private 0700 spill directory is created. Default: the OS temporary directory. */
    spillRoot: z.string().min(1).optional(),
    /** Spill bytes one session may hold on disk; a call that starts past it gets no spill file. */
    sessionSpillQuota: z.number().int().nonnegative().default(4 * GIB),
    /** The shellring-runner executable; default: the one shipped beside the native addon. */
    runnerPath: z.string().min(1).optional(),
    /** Keep spill files after their session closes. */
    keepSpills: z.boolean().default(false),
    /** Per-session resource limits (see cgroups.ts): defaults keep one session's process flood from starving others. */
    limits: z
      .object({
        processes: z.number().int().positive().nullable().default(1024),
        memoryBytes: z.number().int().positive().nullable().default(null),
        cpuWeight: z.number().int().min(1).max(10_000).nullable().default(null),
      })
      .strict()
      .default({ processes: 1024, memoryBytes: null, cpuWeight: null }),
    /** Which host variables commands inherit; by default all but credentials (and agent sockets when sandboxed). */
    env: envPolicySchema.default(envPolicySchema.parse({})),
  })
  .strict();

export type ExecutorConfigInput = z.input<typeof executorConfigSchema>;
export type ExecutorConfig = z.output<typeof executorConfigSchema>;

/** Validates once; a bad field is a clear error naming the field. */
export function parseExecutorConfig(input: ExecutorConfigInput = {}): ExecutorConfig {
  const parsed = executorConfigSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || '(root)';
  throw new ShellringError('SHELLRING_INVALID_CONFIG', `invalid executor config: ${field}: ${issue.message}`);
}
