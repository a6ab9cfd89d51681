// The runtime options of run, mcp and serve: a --config FILE (JSON) under flags, validated by the library's own schema.
//
// Precedence, one rule for every setting: command-line flag, then environment variable (SHELLRING_TOKEN only),
// then the --config file, then the built-in default.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseRuntimeOptions, type RuntimeOptions } from '../runtime/options.js';
import { envPolicySchema } from '../env/policy.js';
import { sandboxConfigSchema } from '../sandbox/config.js';
import { choiceOption, integerOption, usageError, type OptionSpec } from './args.js';
import { loadPolicy } from '../policy/load.js';
import { resourceMetadataSchema } from '../faces/http/resource-metadata.js';
import { sshHosts } from './ssh-hosts.js';
import { list, networkFromFlags } from './network-flags.js';

const MAX_MS = 2_147_483_647;
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

/** Flags every command that builds a runtime accepts (run keeps its own --timeout: the call's timeout). */
export const RUNTIME_FLAGS: Record<string, OptionSpec> = {
  config: { type: 'string' },
  timeout: { type: 'string', sets: ['executor.timeoutMs'] },
  'max-timeout': { type: 'string', sets: ['executor.maxTimeoutMs'] },
  'max-output-bytes': { type: 'string', sets: ['executor.maxOutputBytes'] },
  'max-spill-bytes': { type: 'string', sets: ['executor.maxSpillBytes'] },
  'max-jobs': { type: 'string', sets: ['jobs.maxJobsPerOwner'] },
  sandbox: { type: 'string', sets: ['sandbox.mode'] },
  'sandbox-backend': { type: 'string', sets: ['sandbox.backend'] },
  network: { type: 'string', sets: ['sandbox.network'] },
  'network-allow': { type: 'string', sets: ['sandbox.network.mode', 'sandbox.network.allow'] },
  'network-deny': { type: 'string', sets: ['sandbox.network.mode', 'sandbox.network.deny'] },
  'network-presets': { type: 'string', sets: ['sandbox.network.mode', 'sandbox.network.presets'] },
  'network-ask': { type: 'boolean', sets: ['sandbox.network.mode', 'sandbox.network.ask'] },
  'allow-unix-sockets': { type: 'boolean', sets: ['sandbox.allowUnixSockets'] },
  'env-inherit': { type: 'string', sets: ['executor.env.inherit'] },
  'env-exclude': { type: 'string', sets: ['executor.env.exclude'] },
  'env-include-only': { type: 'string', sets: ['executor.env.includeOnly'] },
  policy: { type: 'string', sets: ['policy'] },
  'ssh-host': { type: 'string', multiple: true, sets: ['executor.kind', 'executor.hosts'] },
};

/** The `serve` section of a config file: what the serve flags set, by the same names in camelCase. */
export const serveConfigSchema = z
  .object({
    host: z.string().min(1).optional().describe('Address to listen on (default 127.0.0.1; any other needs a configured token).'),
    port: z.number().int().min(0).max(65_535).optional().describe('TCP port (default 0: an ephemeral port).'),
    cwd: z.string().min(1).optional().describe("Every session's working directory (default: the current directory)."),
    tokenFile: z
      .string()
      .min(1)
      .optional()
      .describe('File holding the bearer token, mode 600 or stricter, in a directory of its own (else SHELLRING_TOKEN, else one is generated).'),
    maxSessions: z.number().int().positive().optional().describe('Open sessions at most; more get 503 with Retry-After (default 500).'),
    maxCommandsPerSession: z.number().int().positive().optional().describe('Commands running at once in one session (default 16).'),
    maxCommands: z.number().int().positive().optional().describe('Commands running at once in all sessions (default 512).'),
    idleTimeoutMs: z.number().int().nonnegative().optional().describe('Close a session idle this long, its jobs killed (default 1800000; 0 never).'),
    drainTimeoutMs: z.number().int().nonnegative().optional().describe('How long SIGTERM waits for calls in flight (default 30000).'),
    logCommands: z.boolean().optional().describe("Put each command's text in the logs (off by default: commands may hold secrets)."),
    secureCookie: z.boolean().optional().describe("Mark the console's sign-in cookie Secure, for a console reached over https (behind a TLS proxy)."),
    instanceId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1 to 64 letters, digits, "_" or "-"')
      .optional()
      .describe("This instance's name in 2026-07-28 session handles, task ids and approval states, for a load balancer to route by (default: random)."),
    oauth: resourceMetadataSchema.optional().describe('The OAuth protected-resource metadata (the rows below).'),
  })
  .strict();

export type ServeConfig = z.output<typeof serveConfigSchema>;

export interface ComposedConfig {
  runtime: RuntimeOptions;
  serve: ServeConfig;
}

type Values = Record<string, string | boolean | undefined>;

/** Reads --config (if any), lays the flags over it, and validates the result with the runtime's own schema. */
export function composeConfig(values: Values, { callTimeoutFlag = false } = {}): ComposedConfig {
  const file = typeof values.config === 'string' ? readConfig(values.config) : { runtime: {}, serve: {} };
  const runtime: RuntimeOptions = structuredClone(file.runtime);
  const executor: NonNullable<RuntimeOptions['executor']> = { ...runtime.executor };
  const ms = (flag: string, min = 1) => integerOption(`--${flag}`, values[flag], { min, max: MAX_MS, unit: 'milliseconds' });
  const bytes = (flag: string) => integerOption(`--${flag}`, values[flag], { min: 0, max: MAX_BYTES, unit: 'bytes' });
  const set = <K extends keyof typeof executor>(key: K, value: (typeof executor)[K] | undefined) => {
    if (value !== undefined) executor[key] = value;
  };
  if (!callTimeoutFlag) set('timeoutMs', ms('timeout'));
  set('maxTimeoutMs', ms('max-timeout'));
  set('maxOutputBytes', bytes('max-output-bytes'));
  set('maxSpillBytes', bytes('max-spill-bytes'));
  const env = { ...executor.env };
  const inherit = choiceOption('--env-inherit', values['env-inherit'], envPolicySchema.shape.inherit.unwrap().options);
  if (inherit !== undefined) env.inherit = inherit as typeof env.inherit;
  if (typeof values['env-exclude'] === 'string') env.exclude = list(values['env-exclude']);
  if (typeof values['env-include-only'] === 'string') env.includeOnly = list(values['env-include-only']);
  if (Object.keys(env).length > 0) executor.env = env;
  if (typeof values['ssh-host'] === 'string') Object.assign(executor, sshHosts(values['ssh-host'].split('\0')));
  if (Object.keys(executor).length > 0) runtime.executor = executor;
  const maxJobs = integerOption('--max-jobs', values['max-jobs'], { min: 1, max: 100_000, unit: 'a whole number' });
  if (maxJobs !== undefined) {
    if (runtime.jobs === false) throw usageError('--max-jobs conflicts with "jobs": false in the config file');
    runtime.jobs = { ...runtime.jobs, maxJobsPerOwner: maxJobs };
  }
  const sandbox: Record<string, unknown> = {};
  const choices = sandboxConfigSchema.shape;
  const mode = choiceOption('--sandbox', values.sandbox, choices.mode.unwrap().options);
  const backend = choiceOption('--sandbox-backend', values['sandbox-backend'], choices.backend.unwrap().options);
  const network = networkFromFlags(values, runtime.sandbox?.network);
  if (mode !== undefined) sandbox.mode = mode;
  if (backend !== undefined) sandbox.backend = backend;
  if (network !== undefined) sandbox.network = network;
  if (values['allow-unix-sockets'] === true) sandbox.allowUnixSockets = true;
  if (Object.keys(sandbox).length > 0) runtime.sandbox = { ...runtime.sandbox, ...sandbox } as RuntimeOptions['sandbox'];
  const policyFile = typeof values.policy === 'string' ? values.policy : undefined;
  if (policyFile !== undefined) runtime.policy = readJson('--policy', policyFile) as RuntimeOptions['policy'];
  // Judged now, by the schema createRuntime uses, so a bad value fails before anything starts.
  try {
    parseRuntimeOptions(runtime);
  } catch (error) {
    if (policyFile === undefined) throw error;
    throw usageError(`invalid --policy '${policyFile}': ${(error as Error).message.replace(/^invalid runtime options: policy\.?/, '') || '(root)'}`);
  }
  if (runtime.policy) {
    // The rules' examples too, with the file that holds them named.
    const where = policyFile !== undefined ? `--policy '${policyFile}'` : `--config '${values.config as string}'`;
    try {
      loadPolicy(runtime.policy, 'runtime', where, policyFile !== undefined ? '' : 'policy.');
    } catch (error) {
      throw usageError((error as Error).message, error);
    }
  }
  return { runtime, serve: file.serve };
}

/** A JSON object from a file named by `flag`. */
function readJson(flag: string, path: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw usageError(`cannot read ${flag} '${path}': ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw usageError(`invalid ${flag} '${path}': expected a JSON object`);
  }
  return json as Record<string, unknown>;
}

function readConfig(path: string): ComposedConfig {
  const { serve, ...runtime } = readJson('--config', path);
  try {
    parseRuntimeOptions(runtime as RuntimeOptions);
  } catch (error) {
    throw usageError(`invalid --config '${path}': ${(error as Error).message.replace(/^invalid runtime options: /, '')}`);
  }
  const parsed = serveConfigSchema.safeParse(serve ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw usageError(`invalid --config '${path}': serve.${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return { runtime: runtime as RuntimeOptions, serve: parsed.data };
}
