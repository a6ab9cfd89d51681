// The credential excludes against 54 planted variables: neutral names holding credential-shaped values (caught by
// the value scan alone) and credential names in other languages or shortened holding neutral values (caught by the
// name alone); none reaches `env`, unconfined or escalated. Every table entry is caught on its own by a case that
// no other entry catches, and the variables a shell and its toolchains need still pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { looksLikeCredential } from '../../src/env/policy.js';

/** Neutral names, credential-shaped values: only the value can give them away. */
const BY_VALUE: Record<string, string> = {
  V01: 'Server=db.internal;Database=app;User Id=app;Password=hunter2-ado;',
  V02: 'Driver={PostgreSQL};Server=db;Uid=app;Pwd=hunter2-odbc;',
  V03: 'postgres://app:hunter2-url@db.internal:5432/app',
  V04: 'https://deploy:hunter2-https@git.internal/repo.git',
  V05: 'redis://:hunter2-redis@redis.internal:6379/0',
  V06: 'jdbc:mysql://db.internal:3306/app?user=app&password=hunter2-jdbc',
  V07: 'https://api.internal/v1/items?access_token=hunter2-query-0123',
  V08: '{"user": "app", "password": "hunter2-json"}',
  V09: '{"db":{"host":"db","Passwd":"hunter2-nested"}}',
  V10: 'password: hunter2-yaml',
  V11: 'Basic YWRtaW46aHVudGVyMi1iYXNpYw==',
  V12: 'Bearer hunter2bearer0123456789abcdef',
  V13: 'AKIAIOSFODNN7EXAMPLE',
  V14: 'ASIAY34FZKBOKMUTVV7A',
  V15: 'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
  V16: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS',
  V17: 'glpat-0123456789abcdefghij',
  V18: 'xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx',
  V19: 'xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef',
  V20: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
  V21: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123',
  V22: 'sk_live_51Habcdefghijklmnopqrstuvwx',
  V23: 'whsec_abcdefghijklmnopqrstuvwxyz012345',
  V24: 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH',
  V25: 'npm_abcdefghijklmnopqrstuvwxyz0123456789',
  V26: 'pypi-AgEIcHlwaS5vcmcCJGFiY2RlZjAxLTIzNDUtNjc4OS1hYmNkLWVmMDEyMzQ1Njc4OQ',
  V27: 'AIzaSyA0123456789abcdefghijklmnopqrstu',
  V28: 'ya29.a0AfH6SMBabcdefghijklmnopqrstuvwxyz0123',
  V29: 'SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
  V30: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcHAiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLXNpZ25hdHVyZQ',
  V31: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAhunter2\n-----END RSA PRIVATE KEY-----',
  V32: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  V33: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=aHVudGVyMi1henVyZQ==;EndpointSuffix=core.windows.net',
  V34: 'dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
};

/** Credential names (other languages, abbreviations, headers, connection strings), neutral values: only the name. */
const BY_NAME: Record<string, string> = {
  PGPASS: 'plain-a1',
  SSHPASS: 'plain-a2',
  DB_PW: 'plain-a3',
  MASTER_PW: 'plain-a4',
  PASSWORT: 'plain-a5',
  MOT_DE_PASSE: 'plain-a6',
  CONTRASENA: 'plain-a7',
  'CONTRASEÑA': 'plain-a8',
  PAROLA: 'plain-a9',
  SENHA: 'plain-b1',
  GHPAT: 'plain-b2',
  AUTHORIZATION: 'plain-b3',
  JDBC_URL: 'plain-b4',
  CONN_STR: 'plain-b5',
  KENNWORT: 'plain-b6',
  WACHTWOORD: 'plain-b7',
  LOSENORD: 'plain-b8',
  HASLO_DB: 'plain-b9',
  APP_JELSZO: 'plain-c1',
  SALASANA: 'plain-c2',
};

/** What a shell and the usual toolchains need: none of these may be taken for a credential. */
const ORDINARY: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/dev',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'xterm-256color',
  PWD: '/home/dev/project',
  OLDPWD: '/home/dev',
  SHELL: '/bin/bash',
  USER: 'dev',
  LOGNAME: 'dev',
  HOSTNAME: 'build-7',
  TZ: 'UTC',
  EDITOR: 'vim',
  JAVA_HOME: '/usr/lib/jvm/java-17',
  MAVEN_OPTS: '-Xmx2g',
  GOPATH: '/home/dev/go',
  GOPROXY: 'https://proxy.golang.org,direct',
  GOPRIVATE: 'github.com/example/*',
  GOFLAGS: '-mod=mod',
  CARGO_HOME: '/home/dev/.cargo',
  RUSTUP_HOME: '/home/dev/.rustup',
  RUSTFLAGS: '-C target-cpu=native',
  NVM_DIR: '/home/dev/.nvm',
  NODE_OPTIONS: '--max-old-space-size=4096',
  NODE_ENV: 'development',
  npm_config_prefix: '/home/dev/.npm-global',
  PYTHONPATH: '/home/dev/project/src',
  PYTHONHASHSEED: '0',
  VIRTUAL_ENV: '/home/dev/project/.venv',
  PIP_INDEX_URL: 'https://pypi.org/simple',
  CC: 'gcc',
  CFLAGS: '-O2 -g',
  LDFLAGS: '-L/usr/local/lib',
  LD_LIBRARY_PATH: '/usr/local/lib',
  PKG_CONFIG_PATH: '/usr/local/lib/pkgconfig',
  HF_HOME: '/home/dev/.cache/huggingface',
  HF_HUB_OFFLINE: '1',
  TOKENIZERS_PARALLELISM: 'false',
  HTTP_PROXY: 'http://proxy.internal:3128',
  NO_PROXY: 'localhost,127.0.0.1,.internal',
  PROXY_BYPASS: 'localhost',
  DATABASE_URL: 'postgres://db.internal:5432/app',
  CI: 'true',
  GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
  SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
  DOCKER_HOST: 'unix:///var/run/docker.sock',
  AWS_REGION: 'eu-west-1',
  PASSENGER_APP_ENV: 'production',
  COMPAT_MODE: 'on',
  DESCRIPTION: 'Basic authentication is supported; see the password reset page',
};

describe('the credential excludes, judged', () => {
  it('take each of the 54 planted variables for a credential', () => {
    expect(Object.keys(BY_VALUE).length + Object.keys(BY_NAME).length).toBe(54);
    const missed = [...Object.entries(BY_VALUE), ...Object.entries(BY_NAME)].filter(([name, value]) => !looksLikeCredential(name, value));
    expect(missed).toEqual([]);
  });

  it('take none of the ordinary variables for one', () => {
    const taken = Object.entries(ORDINARY).filter(([name, value]) => looksLikeCredential(name, value));
    expect(taken).toEqual([]);
  });

  it('judge the neutral values neutral under the neutral names, and the neutral names neutral', () => {
    // The two halves hold: without its value the name passes, and without its name the value passes.
    for (const name of Object.keys(BY_VALUE)) expect(looksLikeCredential(name, 'plain'), name).toBe(false);
    for (const value of Object.values(BY_NAME)) expect(looksLikeCredential('V00', value), value).toBe(false);
  });
});

/**
 * One case per table entry, each caught by that entry alone (a fragment inside a longer word, a word between
 * neutral words, a value under a neutral name): dropping any one entry fails its case. The tables are not read
 * here, so a dropped entry cannot take its case with it.
 */
const ALONE_BY_NAME = [
  // Fragments.
  'XKEYX', 'XTOKENX', 'XSECRETX', 'XPASSWX', 'XPASSPHRASEX', 'XPASSCODEX', 'XCREDENTIALX', 'XCOOKIEX', 'XSESSIONX',
  'XPRIVATEX', 'XWEBHOOKX', 'XASKPASSX', 'XKUBECONFIGX', 'XNETRCX', 'XAUTHORIZATIONX', 'XBEARERX', 'XKENNWORTX',
  'XCONTRASENAX', 'XCONTRASINALX', 'XSENHAX', 'XWACHTWOORDX', 'XLOSENORDX', 'XPASSORDX', 'XADGANGSKODEX', 'XSALASANAX',
  'XHASLOX', 'XHESLOX', 'XJELSZOX', 'XPAROLX', 'XGEHEIMX', 'XSCHLUSSELX', 'XSCHLUESSELX', 'XSEGRETOX', 'XSEGREDOX',
  'XCHIAVEX',
  // Phrases, read without separators.
  'MOT_DE_PASSE', 'CONN_STR', 'CONNECTION_STRING',
  // Whole words.
  'Q_PASS_Q', 'Q_PWD_Q', 'Q_PW_Q', 'Q_PSW_Q', 'Q_PAT_Q', 'Q_GHPAT_Q', 'Q_GLPAT_Q', 'Q_AUTH_Q', 'Q_DSN_Q', 'Q_JDBC_Q',
  'Q_CERT_Q', 'Q_CERTS_Q', 'Q_CREDS_Q', 'Q_SK_Q', 'Q_JWT_Q', 'Q_OTP_Q', 'Q_TOTP_Q', 'Q_SALT_Q', 'Q_SEED_Q', 'Q_PEPPER_Q',
  'Q_MNEMONIC_Q', 'Q_PIN_Q', 'Q_HMAC_Q', 'Q_MDP_Q', 'Q_CLAVE_Q', 'Q_CHAVE_Q', 'Q_SIFRE_Q', 'Q_JETON_Q',
  // Suffixes glued to a tool's name.
  'Q_ZZPASS', 'Q_ZZPW', 'Q_ZZPWD',
  // Vowel-less spellings.
  'Q_TKN', 'Q_TOKNS', 'Q_KY', 'Q_KYS', 'Q_SCRT', 'Q_SCRTS', 'Q_PSWD', 'Q_PSWRD', 'Q_PSPHRS', 'Q_CRDNTL', 'Q_CRDNTLS', 'Q_PRVT',
  // Digits for letters, each digit alone.
  'XT0KENX', 'XPR1VATEX', 'XS3CRETX', 'XP4SSWX', 'XPA5SWX', 'XSECRE7X', 'XP@SSWX', 'XPA$SWX',
  // Accents read without them.
  'XCONTRASEÑAX', 'XHASŁOX', 'XJELSZÓX', 'XSCHLÜSSELX',
  // Credential files and agent sockets (those not caught by a fragment as well).
  'DOCKER_CONFIG', 'AWS_CONFIG_FILE', 'CLOUDSDK_CONFIG', 'GNUPGHOME', 'GIT_CONFIG_PARAMETERS', 'PGPASSFILE', 'GPG_AGENT_INFO',
  'SSH_AGENT_PID', 'BASH_FUNC_x%%',
];

/** Names that would be caught but for an exception: each exception alone lets its name pass. */
const ALONE_ORDINARY = ['PWD', 'OLDPWD', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'GOPRIVATE', 'TOKENIZERS_PARALLELISM',
  'Q_BYPASS', 'Q_COMPASS', 'Q_ENCOMPASS', 'Q_SURPASS', 'Q_TRESPASS', 'Q_OVERPASS', 'Q_UNDERPASS'];

const ALONE_BY_VALUE = [
  'postgres://app:hunter2@db/app',
  'Server=db;Password=hunter2;',
  '{"password": "hunter2"}',
  'Bearer abcdefghijklmnop0123',
  '-----BEGIN PRIVATE KEY-----',
  'AKIAIOSFODNN7EXAMPLE',
  'ASIAY34FZKBOKMUTVV7A',
  'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
  'github_pat_11ABCDEFG0123456789_abcdefghijkl',
  'glpat-0123456789abcdefghij',
  'xoxb-123456789012-abcdefghij',
  'xapp-1-A0123456789-abcdef',
  'sk-proj-abcdefghijklmnopqrstuvwxyz',
  'sk_live_51Habcdefghij',
  'whsec_abcdefghijklmnopqrstuvwxyz',
  'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH',
  'npm_abcdefghijklmnopqrstuvwxyz0123456789',
  'pypi-AgEIcHlwaS5vcmcCJGFiY2RlZjAxLTIzNDU',
  'AIzaSyA0123456789abcdefghijklmnopqrstu',
  'ya29.a0AfH6SMBabcdefghijklmnop',
  'SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuv',
  'dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcHAiLCJpYXQiOjE3MDB9.c2lnbmF0dXJlLXNpZ25h',
  'https://hooks.slack.com/services/T0/B0/X',
  'https://discord.com/api/webhooks/1/x',
  'https://example.webhook.office.com/webhookb2/x',
  'Basic YWRtaW46aHVudGVy',
];

describe('each exclude, on its own', () => {
  it.each(ALONE_BY_NAME)('takes the name %s for a credential, with a neutral value', (name) => {
    expect(looksLikeCredential(name, 'plain')).toBe(true);
  });

  it.each(ALONE_ORDINARY)('lets the name %s pass, with a neutral value', (name) => {
    expect(looksLikeCredential(name, 'plain')).toBe(false);
  });

  it.each(ALONE_BY_VALUE)('takes the value %s for a credential, under a neutral name', (value) => {
    expect(looksLikeCredential('V00', value)).toBe(true);
  });
});

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-credentials-')));
const open = runtimes();
const saved = { ...process.env };
const planted = { ...BY_VALUE, ...BY_NAME };

beforeAll(() => {
  Object.assign(process.env, planted, ORDINARY);
});

afterAll(() => {
  for (const name of Object.keys({ ...planted, ...ORDINARY })) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** The planted variables a command's `env` shows, by name or by value. */
function reached(env: string): string[] {
  return Object.entries(planted)
    .filter(([name, value]) => env.split('\n').some((line) => line.startsWith(`${name}=`)) || env.includes(value.split('\n')[0]!))
    .map(([name]) => name);
}

describe('the credential excludes, in a command', () => {
  it('let 0 of 54 reach an unconfined command, and the ordinary ones through', async () => {
    const runtime = await open();
    const env = text(await bash(runtime.session({ id: 'plain', cwd: work }), 'env'));
    expect(reached(env)).toEqual([]);
    // PWD and OLDPWD are bash's own; TERM and EDITOR are set for every command. The leading newline lets the
    // first variable `env` prints match too, whichever the environment's order puts there.
    const lines = `\n${env}`;
    // PATH keeps the host's, after the full-screen stand-ins' directory (docs/environment.md).
    expect(lines).toMatch(new RegExp(`\nPATH=(?:[^\n:]+:)?${ORDINARY.PATH!}\n`));
    for (const [name, value] of Object.entries(ORDINARY)) {
      if (!['PWD', 'OLDPWD', 'TERM', 'EDITOR', 'PATH'].includes(name)) expect(lines, name).toContain(`\n${name}=${value}\n`);
    }
  });

  it('let 0 of 54 reach an escalated command (danger-full-access inherits every host variable)', async () => {
    const runtime = await open({ sandbox: { mode: 'read-only' }, approval: { policy: 'ask', request: async () => 'allowed-once' } });
    const result = await bash(runtime.session({ id: 'escalated', cwd: work }), 'env', {
      sandbox_permissions: 'danger-full-access',
      justification: 'read the environment unconfined',
    });
    const env = text(result);
    expect(result.isError, env).toBeFalsy();
    expect(env).toContain('\nHF_HUB_OFFLINE=1\n');
    expect(reached(env)).toEqual([]);
  });
});
