// The environment policy: which of the host's variables a command inherits (in the spirit of Codex's
// shell_environment_policy), and the default that keeps credentials, by name or by value, out of every command.
import { z } from 'zod';

/** The variables `inherit: 'core'` keeps: what a shell needs to find programs, home and locale. */
export const CORE_VARIABLES = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'USERNAME', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'];

/** Name fragments that mark a secret wherever they appear in a name (case-insensitive). */
const SECRET_SUBSTRINGS = [
  'KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'PASSCODE', 'CREDENTIAL', 'COOKIE', 'SESSION', 'PRIVATE',
  'WEBHOOK', 'ASKPASS', 'KUBECONFIG', 'NETRC',
];
/** Short fragments that would match too much inside other words: secret only as a whole `_`-separated word. */
const SECRET_WORDS = ['PASS', 'PWD', 'PAT', 'AUTH', 'DSN', 'CERT', 'CERTS', 'CREDS', 'SK', 'JWT', 'OTP', 'SALT', 'SEED', 'PEPPER', 'MNEMONIC', 'PIN', 'HMAC'];
/**
 * Secret words as they are shortened by dropping vowels (TKN, KY, SCRT, PSWD): a word whose vowel-less form is one
 * of these is a secret word too. Only forms of three or more letters, or KY, which names nothing ordinary.
 */
const SECRET_SKELETONS = new Set(['TKN', 'TKNS', 'KY', 'KYS', 'SCRT', 'SCRTS', 'PSWD', 'PSWRD', 'PSPHRS', 'CRDNTL', 'CRDNTLS', 'PRVT']);
/** Names that hold a secret word yet name public things: the shell's working directories and TLS trust anchors. */
const ORDINARY_NAMES = new Set([
  'PWD', 'OLDPWD', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO',
]);
/** Sockets of agents that sign or decrypt for whoever connects. */
export const AGENT_SOCKETS = ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'SSH_AGENT_PID', 'GNOME_KEYRING_CONTROL', 'DBUS_SESSION_BUS_ADDRESS'];
/** Names of files that hold or fetch credentials (besides the fragments above: KUBECONFIG, NETRC, *ASKPASS). */
const CREDENTIAL_POINTERS = new Set(['DOCKER_CONFIG', 'AWS_CONFIG_FILE', 'CLOUDSDK_CONFIG', 'GNUPGHOME', 'GIT_CONFIG_PARAMETERS']);
/** Exported bash functions (`BASH_FUNC_name%%`): code, which may carry anything, run by every bash that starts. */
const EXPORTED_FUNCTION = /^BASH_FUNC_/i;
/** Digits written for the letters they look like (PASSW0RD, T0KEN, S3CRET). */
const LOOKALIKES: Record<string, string> = { '0': 'O', '1': 'I', '3': 'E', '4': 'A', '5': 'S', '7': 'T', '@': 'A', $: 'S' };

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
  // Webhook addresses are their own credential: whoever has one posts as the integration.
  /\bhooks\.slack\.com\/(?:services|workflows|triggers)\//i,
  /\bdiscord(?:app)?\.com\/api\/webhooks\//i,
  /\.webhook\.office\.com\//i,
  /\bBearer\s+[0-9a-z._~+/-]{16,}/i,
];

/** Whether the default excludes drop `name=value`. */
export function looksLikeCredential(name: string, value: string): boolean {
  const upper = name.toUpperCase();
  if (EXPORTED_FUNCTION.test(upper) || AGENT_SOCKETS.includes(upper) || CREDENTIAL_POINTERS.has(upper)) return true;
  if (!ORDINARY_NAMES.has(upper)) {
    const plain = upper.replace(/[0134579@$]/g, (c) => LOOKALIKES[c] ?? c);
    for (const form of plain === upper ? [upper] : [upper, plain]) {
      if (SECRET_SUBSTRINGS.some((s) => form.includes(s))) return true;
      const words = form.split(/[_\-.]+/);
      if (words.some((word) => SECRET_WORDS.includes(word) || SECRET_SKELETONS.has(skeleton(word)))) return true;
    }
  }
  return SECRET_VALUES.some((pattern) => pattern.test(value));
}

/** A word without its vowels and with doubled letters single: TOKEN -> TKN, PASSWORD -> PSWRD. */
function skeleton(word: string): string {
  return word.replace(/[AEIOU]/g, '').replace(/(.)\1+/g, '$1');
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
