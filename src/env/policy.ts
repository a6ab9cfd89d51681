// The environment policy: which of the host's variables a command inherits (in the spirit of Codex's
// shell_environment_policy), and the default that keeps credentials, by name or by value, out of every command.
import { z } from 'zod';
import { nameLooksSecret } from './credential-names.js';
import { valueLooksSecret } from './credential-values.js';

/** The variables `inherit: 'core'` keeps: what a shell needs to find programs, home and locale. */
export const CORE_VARIABLES = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'USERNAME', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'];

/** Sockets of agents that sign or decrypt for whoever connects. */
export const AGENT_SOCKETS = ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'SSH_AGENT_PID', 'GNOME_KEYRING_CONTROL', 'DBUS_SESSION_BUS_ADDRESS'];
/** Names of files that hold or fetch credentials (besides the name fragments: KUBECONFIG, NETRC, *ASKPASS). */
const CREDENTIAL_POINTERS = new Set(['DOCKER_CONFIG', 'AWS_CONFIG_FILE', 'CLOUDSDK_CONFIG', 'GNUPGHOME', 'GIT_CONFIG_PARAMETERS', 'PGPASSFILE']);
/** Exported bash functions (`BASH_FUNC_name%%`): code, which may carry anything, run by every bash that starts. */
const EXPORTED_FUNCTION = /^BASH_FUNC_/i;

/** Whether the default excludes drop `name=value`: by its name (credential-names.ts) or its value (credential-values.ts). */
export function looksLikeCredential(name: string, value: string): boolean {
  const upper = name.toUpperCase();
  if (EXPORTED_FUNCTION.test(upper) || AGENT_SOCKETS.includes(upper) || CREDENTIAL_POINTERS.has(upper)) return true;
  return nameLooksSecret(name) || valueLooksSecret(value);
}

const glob = z.string().min(1, { error: 'expected a non-empty glob' });

export const envPolicySchema = z
  .object({
    inherit: z
      .enum(['all', 'core', 'none'], { error: 'expected "all", "core" or "none"' })
      .optional()
      .describe('What to start from: every host variable, the core set (plus inheritAlso), or nothing. Default: "all" for unconfined commands, "core" for confined ones (read-only, workspace-write).'),
    inheritAlso: z.array(z.string().min(1, { error: 'expected a non-empty glob' })).default([]).describe('Globs of host variable names kept besides the core set when the core set is inherited (the confined default); the excludes still apply.'),
    ignoreDefaultExcludes: z.boolean().default(false).describe('Keep credential-looking variables (by name or value), exported bash functions and agent sockets. Off by default.'),
    exclude: z.array(glob).default([]).describe('Globs (`*`, `?`; case-insensitive) of names to drop.'),
    includeOnly: z.array(glob).optional().describe('When given, only names matching one of these globs survive the filters above.'),
    set: z
      .record(z.string(), z.string().refine((v) => !v.includes('\0'), { error: 'a value cannot hold a NUL byte' }))
      .superRefine((vars, ctx) => {
        for (const name of Object.keys(vars)) {
          if (!/^[^=\0]+$/.test(name)) {
            ctx.addIssue({ code: 'custom', message: `${JSON.stringify(name)} is not a variable name (empty, or holds "=" or a NUL byte)` });
          }
        }
      })
      .default({})
      .describe('Variables set for every command, after filtering (the trusted request env and DSH_* still win).'),
  })
  .strict();

export type EnvPolicyInput = z.input<typeof envPolicySchema>;
export type EnvPolicy = z.output<typeof envPolicySchema>;

/** Judged pairs kept at most (a few thousand short strings). */
const MAX_VERDICTS = 4096;

/** A compiled policy: host variables in, the inherited subset out. */
export class EnvFilter {
  readonly policy: EnvPolicy;
  readonly #exclude: RegExp[];
  readonly #includeOnly: RegExp[] | undefined;
  readonly #inheritAlso: RegExp[];
  /** Whether a `name=value` pair passes the name and value filters. Judging a pair costs far more than a call may
   * (the credential test tries every secret word and its shortened forms), and a host's environment seldom changes:
   * each pair is judged once. */
  readonly #verdicts = new Map<string, boolean>();

  constructor(policy: EnvPolicy) {
    this.policy = policy;
    this.#exclude = policy.exclude.map(globRegExp);
    this.#includeOnly = policy.includeOnly?.map(globRegExp);
    this.#inheritAlso = policy.inheritAlso.map(globRegExp);
  }

  /** The host variables a command inherits (`sandboxed`: it runs confined). Never modifies `host`. */
  inherit(host: NodeJS.ProcessEnv, sandboxed: boolean): Record<string, string> {
    const env: Record<string, string> = {};
    // Unset: everything for an unconfined command, the core set for a confined one (it gets what it needs to run).
    const inherit = this.policy.inherit ?? (sandboxed ? 'core' : 'all');
    if (inherit === 'none') return env;
    for (const [name, value] of Object.entries(host)) {
      if (value === undefined) continue;
      if (inherit === 'core' && !CORE_VARIABLES.includes(name) && !this.#inheritAlso.some((re) => re.test(name))) continue;
      if (this.#passes(name, value)) env[name] = value;
    }
    return env;
  }

  #passes(name: string, value: string): boolean {
    const key = `${name}=${value}`;
    let passes = this.#verdicts.get(key);
    if (passes === undefined) {
      passes =
        (this.policy.ignoreDefaultExcludes || !looksLikeCredential(name, value)) &&
        !this.#exclude.some((re) => re.test(name)) &&
        (!this.#includeOnly || this.#includeOnly.some((re) => re.test(name)));
      // A host whose environment keeps changing (a value per request, say) must not grow this without bound.
      if (this.#verdicts.size >= MAX_VERDICTS) this.#verdicts.clear();
      this.#verdicts.set(key, passes);
    }
    return passes;
  }
}

function globRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}
