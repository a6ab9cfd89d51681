// Which variable values carry a credential whatever their name (a table): passwords inside URLs, connection strings,
// JSON and headers, private keys, webhook addresses, and the prefixes issuers give their tokens.
// docs/environment.md lists them.

/** The field names that hold a password or token inside a value (`Password=…;`, `?access_token=`, `"passwd": …`). */
const FIELD = '(?:password|passwd|passwort|pwd|pass|secret|client_secret|token|access_token|refresh_token|auth_token|api_?key|account_?key|shared_?access_?key|private_?key)';

/** The patterns, each after what it finds. */
export const SECRET_VALUES: RegExp[] = [
  // URL with a password.
  /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i,
  // A password field with =: ADO.NET and ODBC connection strings, URL queries (JDBC's ?password=), key=value lists.
  new RegExp(String.raw`(?:^|[\s;&?,{(])${FIELD}\s*=\s*[^\s;&]`, 'i'),
  // A password field with :, the name optionally quoted: JSON, YAML, Python dicts.
  new RegExp(String.raw`(?:^|[\s{,(])["']?${FIELD}["']?\s*:\s*["']?[^\s"',}]`, 'i'),
  // Bearer header.
  /\bBearer\s+[0-9a-z._~+/-]{16,}/i,
  // PEM private key.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  // AWS access key id.
  /\bA(?:KIA|SIA)[0-9A-Z]{16}\b/,
  // GitHub token.
  /\b(?:ghp|gho|ghu|ghs|ghr)_[0-9a-z]{20,}|\bgithub_pat_[0-9a-z_]{20,}/i,
  // GitLab token.
  /\bglpat-[0-9a-z_-]{20,}/i,
  // Slack token.
  /\bxox[a-z]-[0-9a-z-]{10,}|\bxapp-\d-[0-9a-z-]{10,}/i,
  // OpenAI or Anthropic key.
  /\bsk-(?:ant-|proj-)?[0-9a-z_-]{16,}/i,
  // Stripe key.
  /\b(?:sk|rk|pk)_(?:live|test)_[0-9a-z]{8,}|\bwhsec_[0-9a-z]{16,}/i,
  // Hugging Face token.
  /\bhf_[a-z]{30,}/i,
  // npm token.
  /\bnpm_[0-9a-z]{36}\b/i,
  // PyPI token.
  /\bpypi-AgE[0-9a-z_-]{20,}/i,
  // Google API key.
  /\bAIza[0-9A-Za-z_-]{30,}/,
  // Google OAuth token.
  /\bya29\.[0-9a-z_-]{20,}/i,
  // SendGrid key.
  /\bSG\.[0-9a-z_-]{16,}\.[0-9a-z_-]{16,}/i,
  // DigitalOcean token.
  /\bdo[opr]_v1_[0-9a-f]{64}\b/,
  // JWT.
  /\beyJ[0-9a-z_-]{10,}\.eyJ[0-9a-z_-]{10,}\.[0-9a-z_-]{10,}/i,
  // Webhook addresses are their own credential: whoever has one posts as the integration. Slack's.
  /\bhooks\.slack\.com\/(?:services|workflows|triggers)\//i,
  // Discord's.
  /\bdiscord(?:app)?\.com\/api\/webhooks\//i,
  // Office 365's.
  /\.webhook\.office\.com\//i,
];

/** `Basic <base64 of user:password>`: the header's value, decoded to check it is a pair, not prose. */
const BASIC = /\bBasic\s+([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])/g;

/** Whether a value carries a credential by the table above, or as an HTTP Basic header. */
export function valueLooksSecret(value: string): boolean {
  if (SECRET_VALUES.some((pattern) => pattern.test(value))) return true;
  for (const [, encoded] of value.matchAll(BASIC)) {
    if (/^[\x20-\x7e]+:[\x20-\x7e]*$/.test(Buffer.from(encoded!, 'base64').toString('latin1'))) return true;
  }
  return false;
}
