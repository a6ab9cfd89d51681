// The environment policy: which of the host's variables a command inherits (in the spirit of Codex's
// shell_environment_policy), and the default that keeps credentials, by name or by value, out of every command.
import { z } from 'zod';

/** The variables `inherit: 'core'` keeps: what a shell needs to find programs, home and locale. */
export const CORE_VARIABLES = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'USERNAME', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'];

/** Name fragments that mark a secret wherever they appear in a name (case-insensitive). */
const SECRET_SUBSTRINGS = ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'CREDENTIAL', 'COOKIE', 'SESSION', 'PRIVATE'];
/** Short fragments that would match too much inside other words: secret only as a whole `_`-separated word. */
const SECRET_WORDS = ['PASS', 'PWD', 'PAT', 'AUTH', 'DSN', 'CERT', 'CERTS', 'CREDS', 'SK', 'JWT', 'OTP'];
/** Names that hold a secret word yet name public things: the shell's working directories and TLS trust anchors. */
const ORDINARY_NAMES = new Set([
  'PWD', 'OLDPWD', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO',
  'SSH_AUTH_SOCK', 'GPG_AGENT_INFO',
]);
/** Sockets of agents that sign or decrypt for whoever connects: withheld from sandboxed commands. */
export const AGENT_SOCKETS = ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'SSH_AGENT_PID', 'GNOME_KEYRING_CONTROL', 'DBUS_SESSION_BUS_ADDRESS'];

/** Values that carry a credential whatever their name: a URL with user:password@, a private key, well-known token shapes. */
const SECRET_VALUES: RegExp[] = [
  /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(?:sk|rk|pk)_(?:live|test)_[0-9a-z]{8,}/i,
  /\bsk-(?:ant-|proj-)?[0-9a-z_-]{16,}/i,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[0-9a-z]{20,}|\bgithub_pat_[0-9a-z_]{20,}/i,
  /\bglpat-[0-9a-z_-]{20,}/i,
  /\bxox[abprs]-[0-9a-z-]{10,}/i,
  /\bA(?:KIA|SIA)[0-9A-Z]{16}\b/,
  /\bAIza[0-9A-Za-z_-]{35}\b/,
  /\bnpm_[0-9a-z]{36}\b/i,
  /\beyJ[0-9a-z_-]{10,}\.eyJ[0-9a-z_-]{10,}\.[0-9a-z_-]{10,}/i,
];

/** Whether the default excludes drop `name=value`. */
export function looksLikeCredential(name: string, value: string): boolean {
  const upper = name.toUpperCase();
  if (!ORDINARY_NAMES.has(upper)) {
    if (SECRET_SUBSTRINGS.some((s) => upper.includes(s))) return true;
    if (upper.split(/[_\-.]+/).some((word) => SECRET_WORDS.includes(word))) return true;
  }
  return SECRET_VALUES.some((pattern) => pattern.test(value));
}

const glob = z.string().min(1, { error: 'expected a non-empty glob' });

export const envPolicySchema = z
  .object({
    inherit: z.enum(['all', 'core', 'none'], { error: 'expected "all", "core" or "none"' }).default('all').describe('What to start from: every host variable, the core set, or nothing.'),
    ignoreDefaultExcludes: z.boolean().default(false).describe('Keep credential-looking variables (by name or value) and agent sockets. Off by default.'),
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

/** A compiled policy: host variables in, the inherited subset out. */
export class EnvFilter {
  readonly policy: EnvPolicy;
  readonly #exclude: RegExp[];
  readonly #includeOnly: RegExp[] | undefined;

  constructor(policy: EnvPolicy) {
    this.policy = policy;
    this.#exclude = policy.exclude.map(globRegExp);
    this.#includeOnly = policy.includeOnly?.map(globRegExp);
  }

  /** The host variables a command inherits; `sandboxed` also withholds agent sockets. Never modifies `host`. */
  inherit(host: NodeJS.ProcessEnv, sandboxed: boolean): Record<string, string> {
    const env: Record<string, string> = {};
    const { inherit, ignoreDefaultExcludes } = this.policy;
    if (inherit === 'none') return env;
    for (const [name, value] of Object.entries(host)) {
      if (value === undefined) continue;
      if (inherit === 'core' && !CORE_VARIABLES.includes(name)) continue;
      if (!ignoreDefaultExcludes) {
        if (looksLikeCredential(name, value)) continue;
        if (sandboxed && AGENT_SOCKETS.includes(name.toUpperCase())) continue;
      }
      if (this.#exclude.some((re) => re.test(name))) continue;
      if (this.#includeOnly && !this.#includeOnly.some((re) => re.test(name))) continue;
      env[name] = value;
    }
    return env;
  }
}

function globRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}
