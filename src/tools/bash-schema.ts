// The bash tool's arguments: one zod source validates them with the contract's messages and yields the JSON Schema.
import { z } from 'zod';
import { isSandboxMode } from '../sandbox/modes.js';

export const ESCALATION_MODES = ['workspace-write', 'danger-full-access'] as const;

export interface BashSchemaOptions {
  /** Advertise run_in_background: background enabled AND a job registry composed. */
  background: boolean;
  /** Advertise the escalation fields: the executor sandboxes. */
  sandbox: boolean;
  /** The timeout hands a still-running command over to a background job. */
  promotes: boolean;
}

const commandError = 'invalid command: expected a non-empty string';
const descriptionError = 'invalid description: expected a non-empty string';
const timeoutError = (issue: { input?: unknown }) =>
  `invalid timeoutMs: expected a positive number, got ${JSON.stringify(issue.input === undefined ? null : issue.input)}`;

export function bashArgsSchema(options: BashSchemaOptions) {
  const base = {
    command: z
      .string({ error: commandError })
      .refine((value) => value.trim() !== '', { error: commandError })
      .describe('The bash command to run, as one `bash -c` script.'),
    description: z
      .string({ error: descriptionError })
      .refine((value) => value.trim() !== '', { error: descriptionError })
      .describe('What the command does, in 5-10 words of active voice (for example "List files in the build directory"); shown to the user.'),
    timeoutMs: z
      .number({ error: timeoutError })
      .positive({ error: timeoutError })
      .refine(Number.isFinite, { error: timeoutError })
      .optional()
      .describe(
        options.promotes
          ? 'Milliseconds to wait for the command (default 120000, at most 600000). A command still running then keeps running as a background job whose id the result gives.'
          : 'Milliseconds before the command is killed (default 120000, at most 600000).',
      ),
    workdir: z
      .string()
      .optional()
      .describe('Directory to run in, absolute or relative to the session directory. Use this instead of `cd`: no shell state survives between calls.'),
  };
  const background = options.background
    ? {
        run_in_background: z
          .boolean()
          .optional()
          .describe('Start the command as a background job and return its id at once; read it with job_output, stop it with job_kill.'),
      }
    : {};
  const sandbox = options.sandbox
    ? {
        sandbox_permissions: z
          .enum(ESCALATION_MODES, {
            error: (issue) =>
              `invalid sandbox_permissions: expected "workspace-write" or "danger-full-access", got ${JSON.stringify(issue.input)}`,
          })
          .optional()
          .describe('Only after a command was denied by the sandbox: the narrowest wider mode it needs, for this one call. The user is asked to approve.'),
        justification: z
          .string()
          .optional()
          .describe('With sandbox_permissions: one sentence, in the language of the current user request, telling the user why this exact command needs the wider access.'),
      }
    : {};
  // Loose: keys outside the schema are ignored rather than refused (and never forwarded), and the JSON Schema says
  // so, so a client that checks arguments against it does not reject a call the tool would run.
  return z.looseObject({ ...base, ...background, ...sandbox });
}

/** The arguments once validated; fields the schema did not advertise are read leniently from the raw input. */
export interface BashArgs {
  command: string;
  description: string;
  timeoutMs?: number;
  workdir?: string;
  run_in_background?: boolean;
  sandbox_permissions?: string;
  justification?: string;
}

/** Validates with the schema; the first issue's message is the contract error. */
export function parseBashArgs(schema: ReturnType<typeof bashArgsSchema>, input: unknown): BashArgs {
  const raw = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  // The schema advertises only the escalation targets, but any mode name is well-formed here: a narrower one is
  // refused later with the contract's "not strictly wider" error, against the call's current mode.
  const { sandbox_permissions: mode, ...rest } = raw;
  const parsed = schema.safeParse(isSandboxMode(mode) ? rest : raw);
  if (!parsed.success) throw new Error(parsed.error.issues[0]!.message);
  // Fields outside this configuration's schema still reach policy, which rejects them with their own errors.
  return {
    ...(parsed.data as BashArgs),
    run_in_background: raw.run_in_background === true ? true : (parsed.data as BashArgs).run_in_background,
    sandbox_permissions:
      typeof raw.sandbox_permissions === 'string' ? raw.sandbox_permissions : undefined,
    justification: typeof raw.justification === 'string' ? raw.justification : undefined,
  };
}
