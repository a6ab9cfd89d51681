// The bash tool's arguments: one zod source validates them with the contract's messages and yields the JSON Schema.
import { z } from 'zod';
import { bashArgErrors, bashParamDocs } from '../contract/index.js';
import { isSandboxMode } from '../sandbox/modes.js';
import { plainArgs } from './plain-args.js';
import { ShellringError } from '../errors.js';

export const ESCALATION_MODES = ['workspace-write', 'danger-full-access'] as const;

export interface BashSchemaOptions {
  /** Advertise run_in_background: background enabled AND a job registry composed. */
  background: boolean;
  /** Advertise the escalation fields: the executor sandboxes and someone can approve for this session. */
  sandbox: boolean;
  /** The timeout hands a still-running command over to a background job. */
  promotes: boolean;
}

const commandError = bashArgErrors.command;
const descriptionError = bashArgErrors.description;
const timeoutError = (issue: { input?: unknown }) => bashArgErrors.timeoutMs(issue.input);

/** Every argument the bash tool knows; a configuration advertises a subset (see `bashArgsSchema`). */
function argumentFields(promotes: boolean) {
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
      .describe(promotes ? bashParamDocs.timeoutMsPromotes : bashParamDocs.timeoutMs),
    workdir: z
      .string({ error: (issue) => bashArgErrors.type('workdir', 'a string', issue.input) })
      .optional()
      .describe(bashParamDocs.workdir),
    run_in_background: z
      .boolean({ error: (issue) => bashArgErrors.type('run_in_background', 'a boolean', issue.input) })
      .optional()
      .describe(bashParamDocs.runInBackground),
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

export function bashArgsSchema(options: BashSchemaOptions) {
  const { run_in_background, sandbox_permissions, justification, ...base } = argumentFields(options.promotes);
  // Loose: keys outside the schema are ignored rather than refused (and never forwarded), and the JSON Schema says
  // so, so a client that checks arguments against it does not reject a call the tool would run.
  return z.looseObject({
    ...base,
    ...(options.background ? { run_in_background } : {}),
    ...(options.sandbox ? { sandbox_permissions, justification } : {}),
  });
}

/**
 * The arguments once validated, typed from the schema with every field advertised. Any mode name is well-formed in
 * `sandbox_permissions` (policy refuses a narrower one with its own error), so it is a string here.
 */
export type BashArgs = Omit<z.output<z.ZodObject<ReturnType<typeof argumentFields>>>, 'sandbox_permissions'> & {
  sandbox_permissions?: string;
};

/** Validates with the schema; the first issue's message is the contract error. */
export function parseBashArgs(schema: ReturnType<typeof bashArgsSchema>, input: unknown): BashArgs {
  const raw = plainArgs(input);
  // The schema advertises only the escalation targets, but any mode name is well-formed here: a narrower one is
  // refused later with the contract's "not strictly wider" error, against the call's current mode.
  const { sandbox_permissions: mode, ...rest } = raw;
  const parsed = schema.safeParse(isSandboxMode(mode) ? rest : raw);
  if (!parsed.success) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', parsed.error.issues[0]!.message);
  // No argv or path can hold a NUL byte: refuse it here rather than fail later inside the spawn.
  if (parsed.data.command.includes('\0')) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashArgErrors.nulInCommand);
  if (parsed.data.workdir?.includes('\0')) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashArgErrors.nulInWorkdir);
  // Fields outside this configuration's schema still reach policy, which rejects them with their own errors.
  return {
    ...(parsed.data as BashArgs),
    run_in_background: raw.run_in_background === true ? true : (parsed.data as BashArgs).run_in_background,
    sandbox_permissions:
      typeof raw.sandbox_permissions === 'string' ? raw.sandbox_permissions : undefined,
    justification: typeof raw.justification === 'string' ? raw.justification : undefined,
  };
}
