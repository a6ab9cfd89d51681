// The environment policy: the credential default on 25 credential-like variables and the 10 names that once
// slipped through, ordinary settings passing, the core set for confined commands, inherit/exclude/includeOnly/set,
// and clear errors. Real bash throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/index.js';
import { bash, text } from '../helpers/calls.js';
import { EnvFilter, envPolicySchema, looksLikeCredential } from '../../src/env/policy.js';
import { NON_INTERACTIVE, withStandIns } from '../../src/env/non-interactive.js';

/** The adversarial run's credential-like variables, each a real-looking secret. */
const CREDENTIALS: Record<string, string> = {
  DATABASE_URL: 'postgres://app:hunter2@db.internal:5432/app',
  MYSQL_PWD: 'hunter2',
  GH_PAT: 'github_pat_11AAAAAAA0aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  NPM_CONFIG__AUTH: 'dXNlcjpodW50ZXIy',
  SENTRY_DSN: 'https://0123456789abcdef@o1.ingest.sentry.io/42',
  HTTPS_PROXY: 'http://proxyuser:proxypass@proxy.internal:3128',
  REDIS_URL: 'redis://:s3cretpw@redis.internal:6379/0',
  DOCKER_AUTH_CONFIG: '{"auths":{"registry.internal":{"auth":"dXNlcjpwYXNz"}}}',
  STRIPE_SK: 'sk_live_51HxxxxxxxxxxxxxxxxxxxxxxAB',
  MY_CREDENTIALS: 'user=admin;password=hunter2',
  DB_PASS: 'hunter2',
  SSH_AUTH_SOCK: '/tmp/ssh-XXXX/agent.1234',
  GPG_AGENT_INFO: '/run/user/0/gnupg/S.gpg-agent:0:1',
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'FwoGZXIvYXdzEXAMPLE',
  GITHUB_TOKEN: 'ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  OPENAI_API_KEY: 'sk-proj-aaaaaaaaaaaaaaaaaaaaaaaa',
  SMTP_PASSWD: 'hunter2',
  SESSION_COOKIE: 'sid=abcdef0123456789',
  APP_SECRET: 'abcdef0123456789',
  SIGNING_PEM: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
  CLIENT_CERT: '/etc/client/cert.pem',
  AZURE_CLIENT_SECRET: 'abc~defghijklmnop',
  DEPLOY_HELPER: 'glpat-aaaaaaaaaaaaaaaaaaaa',
};
/** Ordinary settings that must still pass. */
const ORDINARY: Record<string, string> = {
  LANG: 'C.UTF-8',
  HISTSIZE: '1000',
  TZ: 'UTC',
  NODE_ENV: 'production',
  HTTP_PROXY: 'http://proxy.internal:3128',
  SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
  AWS_REGION: 'eu-west-1',
  KEEPALIVE_NOTE: 'plain',
};
/** Names an adversarial run found reaching commands under the default policy: sockets, credential helpers, an
 * exported function holding a secret, a webhook, and secret words spelled short or with digits. */
const SLIPPED: Record<string, string> = {
  SSH_AUTH_SOCK: '/tmp/ssh-XXXX/agent.1234',
  KUBECONFIG: '/root/.kube/config',
  GIT_ASKPASS: '/usr/local/bin/git-credential-helper',
  'BASH_FUNC_deploy%%': '() {  curl -H "X-Api: s3cr3t-f0r-d3pl0y" https://deploy.internal\n}',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  GH_TKN: 'c0ffee0123456789abcdef',
  PASSW0RD: 'hunter2',
  ACCESS_KY: 'AK0123456789',
  ENCRYPTION_SALT: 'c2FsdHNhbHQ=',
  SIGNING_SEED: 'seedseedseed',
};

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-env-')));
const names = [...Object.keys(CREDENTIALS), ...Object.keys(ORDINARY), 'PATH', 'HOME', 'TERM'];
const probe = `for n in ${names.join(' ')}; do if [ -n "\${!n+x}" ]; then printf '%s=%s\\n' "$n" "\${!n}"; fi; done`;

function seen(output: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of output.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0 && names.includes(line.slice(0, i))) env[line.slice(0, i)] = line.slice(i + 1);
  }
  return env;
}

const saved = { ...process.env };
let plain: Runtime;
let sandboxed: Runtime;

beforeAll(async () => {
  Object.assign(process.env, CREDENTIALS, ORDINARY, SLIPPED);
  plain = await createRuntime({ executor: { threads: 1 } });
  sandboxed = await createRuntime({ executor: { threads: 1 }, sandbox: { mode: 'read-only' } });
});

afterAll(async () => {
  for (const name of [...Object.keys(CREDENTIALS), ...Object.keys(ORDINARY), ...Object.keys(SLIPPED)]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await Promise.all([plain?.close(), sandboxed?.close()]);
});

describe('the default policy', () => {
  it('judges each of the 25 credential-like variables a credential, and ordinary settings not', () => {
    expect(Object.keys(CREDENTIALS)).toHaveLength(25);
    const missed = Object.entries(CREDENTIALS).filter(([name, value]) => !looksLikeCredential(name, value));
    expect(missed).toEqual([]);
    for (const [name, value] of Object.entries(ORDINARY)) expect(looksLikeCredential(name, value), name).toBe(false);
    for (const name of ['PWD', 'OLDPWD', 'PATH', 'HOME', 'USER', 'SHELL', 'TERM']) {
      expect(looksLikeCredential(name, '/home/user'), name).toBe(false);
    }
  });

  it('judges a variable again when its value changes: a value that turns credential-like is dropped', () => {
    const filter = new EnvFilter(envPolicySchema.parse({}));
    expect(filter.inherit({ MY_SETTING: 'plain' }, false)).toEqual({ MY_SETTING: 'plain' });
    expect(filter.inherit({ MY_SETTING: 'ghp_0123456789abcdefghijklmnopqrstuvwxyz' }, false)).toEqual({});
    expect(filter.inherit({ MY_SETTING: 'plain' }, false)).toEqual({ MY_SETTING: 'plain' });
  });

  it('judges each name that once slipped through a credential, by name alone', () => {
    for (const name of Object.keys(SLIPPED)) expect(looksLikeCredential(name, 'plain'), name).toBe(true);
    // The webhook is known by its address too, under any name.
    expect(looksLikeCredential('NOTIFY_URL', SLIPPED.SLACK_WEBHOOK_URL!)).toBe(true);
  });

  it('lets no credential, agent socket or exported function reach an unsandboxed command', async () => {
    const env = seen(text(await bash(plain.session({ id: 'plain', cwd: work }), probe)));
    for (const name of Object.keys(CREDENTIALS)) expect(env[name], name).toBeUndefined();
    for (const [name, value] of Object.entries(ORDINARY)) expect(env[name], name).toBe(value);
    // The host's PATH, after the full-screen stand-ins (test/env/full-screen.test.ts).
    expect(env.PATH).toBe(withStandIns(process.env.PATH));
    expect(env.HOME).toBe(process.env.HOME);
    const all = text(await bash(plain.session({ id: 'plain', cwd: work }), 'env; declare -F deploy || echo no-function'));
    // A name shellring sets itself (a non-interactive stand-in) carries its own value, never the host's.
    for (const [name, value] of Object.entries(SLIPPED)) {
      if (name in NON_INTERACTIVE) expect(all, name).toContain(`${name}=${NON_INTERACTIVE[name]}\n`);
      else expect(all, name).not.toContain(`${name}=`);
      expect(all, name).not.toContain(value);
    }
    expect(all).not.toContain('s3cr3t');
    expect(all).toContain('no-function');
    expect(env.TERM).toBe('dumb');
  });

  it('gives a sandboxed command the core set only, and what the operator lists besides', async () => {
    const env = seen(text(await bash(sandboxed.session({ id: 'boxed', cwd: work }), probe)));
    for (const name of Object.keys(CREDENTIALS)) expect(env[name], name).toBeUndefined();
    expect(env).toEqual({ LANG: 'C.UTF-8', TZ: 'UTC', PATH: withStandIns(process.env.PATH), HOME: process.env.HOME, TERM: 'dumb' });
    const listed = await createRuntime({
      executor: { threads: 1, env: { inheritAlso: ['HTTP_PROXY', 'SSL_*', 'HISTSIZE', 'AWS_*'] } },
      sandbox: { mode: 'read-only' },
    });
    try {
      const more = seen(text(await bash(listed.session({ id: 'listed', cwd: work }), probe)));
      for (const name of ['HTTP_PROXY', 'SSL_CERT_FILE', 'HISTSIZE', 'AWS_REGION']) expect(more[name], name).toBe(ORDINARY[name]);
      // Listing a name does not lift the excludes.
      for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) expect(more[name], name).toBeUndefined();
      expect(more.NODE_ENV).toBeUndefined();
    } finally {
      await listed.close();
    }
  });
});

describe('policy options', () => {
  async function envWith(policy: Record<string, unknown>): Promise<Record<string, string>> {
    const runtime = await createRuntime({ executor: { threads: 1, env: policy } });
    try {
      return seen(text(await bash(runtime.session({ id: 'opts', cwd: work }), probe)));
    } finally {
      await runtime.close();
    }
  }

  it("inherit: 'core' keeps only the core set; 'none' keeps nothing; set adds variables", async () => {
    const core = await envWith({ inherit: 'core' });
    expect(Object.keys(core).sort()).toEqual(['HOME', 'LANG', 'PATH', 'TERM', 'TZ']);
    const none = await envWith({ inherit: 'none', set: { PATH: '/usr/bin:/bin', HISTSIZE: '50' } });
    expect(none).toEqual({ PATH: withStandIns('/usr/bin:/bin'), HISTSIZE: '50', TERM: 'dumb' });
  });

  it('exclude drops matching names (globs, any case); includeOnly keeps only matching names', async () => {
    const excluded = await envWith({ exclude: ['node_*', 'H?STSIZE'] });
    expect(excluded.NODE_ENV).toBeUndefined();
    expect(excluded.HISTSIZE).toBeUndefined();
    expect(excluded.LANG).toBe('C.UTF-8');
    const only = await envWith({ includeOnly: ['PATH', 'L*'] });
    expect(Object.keys(only).sort()).toEqual(['LANG', 'PATH', 'TERM']);
  });

  it('ignoreDefaultExcludes lets credentials through, for deployments that mean it', async () => {
    const all = await envWith({ ignoreDefaultExcludes: true });
    expect(all.GITHUB_TOKEN).toBe(CREDENTIALS.GITHUB_TOKEN);
    expect(all.DATABASE_URL).toBe(CREDENTIALS.DATABASE_URL);
  });

  it.each([
    [{ inherit: 'some' }, 'invalid runtime options: executor.env.inherit: expected "all", "core" or "none"'],
    [{ exclude: [''] }, 'invalid runtime options: executor.env.exclude.0: expected a non-empty glob'],
    [{ set: { 'A=B': 'x' } }, 'invalid runtime options: executor.env.set: "A=B" is not a variable name (empty, or holds "=" or a NUL byte)'],
    [{ set: { A: 'x\0y' } }, 'invalid runtime options: executor.env.set.A: a value cannot hold a NUL byte'],
    [{ includeonly: ['PATH'] }, 'invalid runtime options: executor.env: Unrecognized key: "includeonly"'],
  ])('%j is a clear error', async (policy, message) => {
    await expect(createRuntime({ executor: { env: policy as never } })).rejects.toThrow(message);
  });
});
