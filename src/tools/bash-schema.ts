// The bash tool's arguments: one zod source validates them with the contract's messages and yields the JSON Schema.
import { z } from 'zod';
import { bashArgErrors, bashParamDocs, terminalDocs, type CommandLimits } from '../contract/index.js';
import { isSandboxMode } from '../sandbox/modes.js';
import { knownArgs } from './plain-args.js';
import { ShellringError } from '../errors.js';

export const ESCALATION_MODES = ['workspace-write', 'danger-full-access'] as const;

export interface BashSchemaOptions {
  /** Advertise run_in_background: background enabled AND a job registry composed. */
  background: boolean;
  /** Advertise the escalation fields: the executor sandboxes and someone can approve for this session. */
  sandbox: boolean;
  /** The timeout hands a still-running command over to a background job. */
  promotes: boolean;
  /** The executor's configured figures, which the parameters state. */
  limits: CommandLimits;
}

const commandError = bashArgErrors.command;
const descriptionError = bashArgErrors.description;
const timeoutError = (issue: { input?: unknown }) => bashArgErrors.timeoutMs(issue.input);

/** Every argument the bash tool knows; a configuration advertises a subset (see `bashArgsSchema`). */
function argumentFields(promotes: boolean, limits: CommandLimits) {
  return {
    command: z
      .string({ error: commandError })
      .refine((value) => value.trim() !== '', { error: commandError })
      .describe(bashParamDocs.command),
    description: z
      .string({ error: descriptionError })
      .refine((value) => value.trim() !== '', { error: descriptionError })
      .describe(bashParamDocs.description),
    timeoutMs: z
      .number({ error: timeoutError })
      .positive({ error: timeoutError })
      .refine(Number.isFinite, { error: timeoutError })
      .optional()
      .describe(promotes ? bashParamDocs.timeoutMsPromotes(limits) : bashParamDocs.timeoutMs(limits)),
    workdir: z
      .string({ error: (issue) => bashArgErrors.type('workdir', 'a string', issue.input) })
      .optional()
      .describe(bashParamDocs.workdir),
    run_in_background: z
      .boolean({ error: (issue) => bashArgErrors.type('run_in_background', 'a boolean', issue.input) })
      .optional()
      .describe(bashParamDocs.runInBackground),
    tty: z
      .boolean({ error: (issue) => bashArgErrors.type('tty', 'a boolean', issue.input) })
      .optional()
      .describe(terminalDocs.tty),
    sandbox_permissions: z
      .enum(ESCALATION_MODES, { error: (issue) => bashArgErrors.sandboxPermissions(issue.input) })
      .optional()
      .describe(bashParamDocs.sandboxPermissions),
    justification: z
      .string({ error: (issue) => bashArgErrors.type('justification', 'a string', issue.input) })
      .optional()
      .describe(bashParamDocs.justification),
  };
}

/** Every argument name the tool takes in some configuration: one outside its schema meets that field's own error. */
const KNOWN = Object.keys(argumentFields(false, { timeoutMs: 1, maxTimeoutMs: 1, maxOutputBytes: 1 }));

export function bashArgsSchema(options: BashSchemaOptions) {
  const { run_in_background, tty, sandbox_permissions, justification, ...base } = argumentFields(options.promotes, options.limits);
  // Strict: an argument the tool does not take is refused with the names of those it does (see knownArgs), and the
  // JSON Schema says so, so a client that checks arguments against it catches a misnamed one before sending it.
  return z.strictObject({
    ...base,
    // A terminal is typed into through job_input, a job tool: offered where jobs are.
    ...(options.background ? { run_in_background, tty } : {}),
    ...(options.sandbox ? { sandbox_permissions, justification } : {}),
  });
}

/** Every argument field's schema: the public argument type (tool-types.ts) is its input. */
export type BashArgumentFields = ReturnType<typeof argumentFields>;

/**
 * The arguments once validated, typed from the schema with every field advertised. Any mode name is well-formed in
 * `sandbox_permissions` (policy refuses a narrower one with its own error), so it is a string here.
 */
export type BashArgs = Omit<z.output<z.ZodObject<ReturnType<typeof argumentFields>>>, 'sandbox_permissions'> & {
  sandbox_permissions?: string;
};

/** Validates with the schema; the first issue's message is the contract error. */
export function parseBashArgs(schema: ReturnType<typeof bashArgsSchema>, input: unknown): BashArgs {
  const raw = knownArgs('bash', input, KNOWN, Object.keys(schema.shape));
  // Judged by this configuration's schema: its own fields. The schema advertises only the escalation targets, but any
  // mode name is well-formed here: a narrower one is refused later with the contract's "not strictly wider" error,
  // against the call's current mode. Fields outside the schema reach policy, which refuses them with their own errors.
  const judged = Object.fromEntries(
    Object.entries(raw).filter(([key, value]) => key in schema.shape && !(key === 'sandbox_permissions' && isSandboxMode(value))),
  );
  const parsed = schema.safeParse(judged);
  if (!parsed.success) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', parsed.error.issues[0]!.message);
  // No argv or path can hold a NUL byte: refuse it here rather than fail later inside the spawn.
  if (parsed.data.command.includes('\0')) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashArgErrors.nulInCommand);
  if (parsed.data.workdir?.includes('\0')) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashArgErrors.nulInWorkdir);
  return {
    ...(parsed.data as BashArgs),
    run_in_background: raw.run_in_background === true ? true : (parsed.data as BashArgs).run_in_background,
    tty: raw.tty === true ? true : (parsed.data as BashArgs).tty,
    sandbox_permissions:
      typeof raw.sandbox_permissions === 'string' ? raw.sandbox_permissions : undefined,
    justification: typeof raw.justification === 'string' ? raw.justification : undefined,
  };
}
