// The server's own credentials against its commands: a real `shellring serve` (network allowed) with 54 secrets in
// its environment and its token in a file; a command in one of its sessions looks for the token in every process's
// command line and environment and in the file, and tries to widen its own session from the console.
// Usage: node server-escape.mjs <landlock|bubblewrap|none> <workdir>   (prints one JSON object of facts)
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [backend, base] = process.argv.slice(2);
const cli = new URL('../../dist/src/cli/main.js', import.meta.url).pathname;
const ws = join(base, 'ws');
const secretDir = join(base, 'secret');
mkdirSync(ws, { recursive: true });
mkdirSync(secretDir, { recursive: true, mode: 0o700 });
const tokenFile = join(secretDir, 'token');
// The shape `openssl rand -base64 32` gives.
const token = `${Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff)).toString('base64')}`;
writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });

/** 54 credential-like variables, each value carrying a marker a reader can find in raw environ bytes. */
const names = [
  'DATABASE_URL', 'MYSQL_PWD', 'GH_PAT', 'NPM_CONFIG__AUTH', 'SENTRY_DSN', 'REDIS_URL', 'DOCKER_AUTH_CONFIG', 'STRIPE_SK',
  'MY_CREDENTIALS', 'DB_PASS', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'GITHUB_TOKEN',
  'OPENAI_API_KEY', 'SMTP_PASSWD', 'SESSION_COOKIE', 'APP_SECRET', 'CLIENT_CERT', 'AZURE_CLIENT_SECRET', 'VAULT_TOKEN',
  'ANTHROPIC_API_KEY', 'JWT_SIGNING_KEY', 'OAUTH_CLIENT_SECRET', 'PGPASSWORD', 'REGISTRY_PASSWORD', 'TWILIO_AUTH_TOKEN',
  'SENDGRID_API_KEY', 'DATADOG_API_KEY', 'GPG_PASSPHRASE', 'KEYSTORE_PASS', 'SSH_PRIVATE_KEY', 'ADMIN_OTP',
  'CI_JOB_JWT', 'LDAP_BIND_PASSWORD', 'HEROKU_API_KEY', 'CLOUDFLARE_API_TOKEN', 'NETLIFY_AUTH_TOKEN', 'GOOGLE_CREDENTIALS',
  'SSH_AUTH_SOCK', 'KUBECONFIG', 'GIT_ASKPASS', 'BASH_FUNC_leak%%', 'SLACK_WEBHOOK_URL', 'GH_TKN', 'PASSW0RD',
  'ACCESS_KY', 'ENCRYPTION_SALT', 'SIGNING_SEED', 'DISCORD_WEBHOOK', 'SUDO_ASKPASS', 'NETRC', 'DOCKER_CONFIG', 'API_SCRT',
];
const secrets = {};
names.forEach((name, i) => {
  const marker = `planted${String(i).padStart(2, '0')}x${Math.random().toString(36).slice(2, 10)}`;
  // Values in the shape such a variable has: a function's body, a URL with its password.
  if (name.startsWith('BASH_FUNC_')) secrets[name] = `() {  echo ${marker}\n}`;
  else if (name === 'DATABASE_URL') secrets[name] = `postgres://app:${marker}@db.internal:5432/app`;
  else if (name === 'REDIS_URL') secrets[name] = `redis://:${marker}@redis.internal:6379/0`;
  else secrets[name] = marker;
});
const markers = Object.values(secrets).map((value) => /planted\d\dx\w+/.exec(value)[0]);

const args = [cli, 'serve', '--port', '0', '--cwd', ws, '--token-file', tokenFile];
if (backend !== 'none') args.push('--sandbox', 'read-only', '--sandbox-backend', backend, '--network', 'allow');
const env = { ...process.env, ...secrets };
delete env.SHELLRING_TOKEN;
const serve = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
let stderr = '';
serve.stderr.on('data', (chunk) => (stderr += chunk));
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
  serve.stderr.on('data', () => {
    const match = /listening on (http:\/\/\S+)/.exec(stderr);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  serve.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
});
const origin = new URL(url).origin;

const facts = { backend, markers: markers.length };
try {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'escape', version: '1' });
  await client.connect(transport);
  const sessionId = transport.sessionId;
  const bash = async (command) => {
    const result = await client.callTool({ name: 'bash', arguments: { command, description: 'an attack from inside' } });
    return result.content[0].text;
  };

  // The attacker's program: everything it can find, then the escalation with whatever token it found.
  const attack = join(ws, 'attack.mjs');
  writeFileSync(
    attack,
    `import { readFileSync, readdirSync } from 'node:fs';
const [origin, sessionId] = process.argv.slice(2);
// What the test knows, written here rather than in the command line, which other processes' titles would echo.
const tokenFile = ${JSON.stringify(tokenFile)};
const markers = ${JSON.stringify(markers)};
const out = { cmdlineNamesTokenFile: [], environReadable: 0, markersSeen: [], tokenFileRead: false, candidates: 0, modeChanges: [] };
const candidates = new Set();
const seen = (text) => { for (const m of markers) if (text.includes(m) && !out.markersSeen.includes(m)) out.markersSeen.push(m); };
for (const name of readdirSync('/proc')) {
  if (!/^\\d+$/.test(name) || Number(name) === process.pid) continue;
  try {
    const cmdline = readFileSync('/proc/' + name + '/cmdline', 'utf8').split('\\0');
    if (cmdline.some((arg) => arg.includes(tokenFile))) out.cmdlineNamesTokenFile.push(name);
    for (let i = 0; i < cmdline.length; i += 1) {
      const arg = cmdline[i];
      const file = arg === '--token-file' ? cmdline[i + 1] : arg.startsWith('--token-file=') ? arg.slice(13) : undefined;
      if (file) try { candidates.add(readFileSync(file, 'utf8').trim()); } catch {}
    }
  } catch {}
  try {
    const environ = readFileSync('/proc/' + name + '/environ', 'latin1');
    out.environReadable += 1;
    seen(environ);
    const token = /SHELLRING_TOKEN=([^\\0]+)/.exec(environ);
    if (token) candidates.add(token[1]);
  } catch {}
}
seen(JSON.stringify(process.env));
try { candidates.add(readFileSync(tokenFile, 'utf8').trim()); out.tokenFileRead = true; } catch {}
out.candidates = [...candidates];
const mode = '/api/sessions/' + encodeURIComponent(sessionId) + '/mode';
const body = JSON.stringify({ mode: 'danger-full-access' });
const json = { 'content-type': 'application/json' };
out.modeChanges.push({ how: 'no token', status: (await fetch(origin + mode, { method: 'POST', headers: json, body })).status });
for (const token of candidates) {
  const bearer = await fetch(origin + mode, { method: 'POST', headers: { ...json, authorization: 'Bearer ' + token }, body });
  out.modeChanges.push({ how: 'bearer', status: bearer.status });
  const signIn = await fetch(origin + '/', { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) });
  const cookie = (signIn.headers.get('set-cookie') || '').split(';')[0];
  const page = await (await fetch(origin + '/', { headers: { cookie } })).text();
  const csrf = (/name="shellring-csrf" content="([^"]*)"/.exec(page) || [])[1] || '';
  const browser = await fetch(origin + mode, { method: 'POST', headers: { ...json, cookie, 'x-shellring-csrf': csrf }, body });
  out.modeChanges.push({ how: 'signed in', status: browser.status });
}
console.log(JSON.stringify(out));
`,
  );
  chmodSync(attack, 0o644);
  const report = await bash(`${process.execPath} ${attack} ${origin} ${sessionId}`);
  try {
    facts.attack = JSON.parse(report.trim().split('\n').at(-1));
    // Other servers on this host may leave tokens about; what matters is whether this server's was among them.
    facts.tokenFound = facts.attack.candidates.includes(token);
    delete facts.attack.candidates;
  } catch {
    facts.attack = { unparsed: report };
  }
  // The command's own environment, as bash sees it (exported functions included).
  const envText = await bash('env; declare -F');
  facts.commandEnvMarkers = markers.filter((m) => envText.includes(m));
  // Still confined afterwards: a write in the workspace is refused (read-only).
  facts.afterwards = await bash('touch after-attack 2>/dev/null && echo wrote || echo refused');
  // The serve process's own command line, as any process on the host reads it.
  facts.serveCmdline = readFileSync(`/proc/${serve.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  facts.tokenInServeCmdline = facts.serveCmdline.some((arg) => arg.includes(tokenFile));
  await client.close();
} finally {
  serve.kill('SIGTERM');
  await new Promise((resolve) => serve.once('exit', resolve));
}
console.log(JSON.stringify(facts));
