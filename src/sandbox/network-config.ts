// The domain network mode's configuration: allow and deny entries, presets for the common registries, reasons, and
// the proxy's policy (and the commands' managed proxy environment) derived from them.
import { isIP } from 'node:net';
import { z } from 'zod';
import { join } from 'node:path';
import type { NativeNetPolicy } from '../native/binding.js';
import { STAND_INS } from '../env/non-interactive.js';

/** ssh's ProxyCommand through the proxy (a bash script beside the other stand-ins, in every session's view). */
export const CONNECT_HELPER = join(STAND_INS, 'shellring-connect');

/** The hosts each preset names (the registry's API, its file hosts, and what its clients fetch from). */
export const NETWORK_PRESETS = {
  npm: ['registry.npmjs.org'],
  pypi: ['pypi.org', 'files.pythonhosted.org'],
  crates: ['crates.io', 'static.crates.io', 'index.crates.io'],
  github: [
    'github.com',
    'api.github.com',
    'codeload.github.com',
    'objects.githubusercontent.com',
    'raw.githubusercontent.com',
    'release-assets.githubusercontent.com',
    'uploads.github.com',
  ],
  debian: ['deb.debian.org', 'security.debian.org', 'ftp.debian.org'],
} as const satisfies Record<string, readonly string[]>;

export type NetworkPreset = keyof typeof NETWORK_PRESETS;

/** The port of the proxy's listener on each session namespace's 127.0.0.1 (crates/wire/src/plan.rs: PROXY_PORT). */
export const PROXY_PORT = 3128;

const LABEL = /^[A-Za-z0-9_-]{1,63}$/;

/** `host`, `*.suffix`, `*`, an IP literal (`[v6]` with a port), each optionally `:port`. */
export function entryProblem(entry: string): string | undefined {
  let host = entry;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    [, host, port] = bracketed as unknown as [string, string, string | undefined];
    if (isIP(host) !== 6) return 'expected an IPv6 address inside [ ]';
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    [host, port] = entry.split(':') as [string, string];
  }
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return 'expected a port 1-65535';
  if (host === '*' || isIP(host)) return undefined;
  const name = host.startsWith('*.') ? host.slice(2) : host;
  const labels = name.replace(/\.$/, '').split('.');
  return name.length <= 253 && labels.every((l) => LABEL.test(l)) ? undefined : 'expected host, *.suffix, * or an IP address, optionally :port';
}

const entry = z.string().superRefine((value, ctx) => {
  const problem = entryProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `network entry ${JSON.stringify(value)}: ${problem}` });
});

export const domainsSchema = z
  .object({
    mode: z.literal('domains').describe('Network by name: the entries below decide which hosts commands reach.'),
    allow: z.array(entry).default([]).describe('Hosts commands may reach: host, *.suffix (names below it), an IP literal, or *, each optionally :port.'),
    presets: z
      .array(z.enum(Object.keys(NETWORK_PRESETS) as [NetworkPreset, ...NetworkPreset[]]))
      .default([])
      .describe(
        `Registries added to allow: ${Object.entries(NETWORK_PRESETS)
          .map(([name, hosts]) => `${name} (${hosts.join(', ')})`)
          .join('; ')}.`,
      ),
    deny: z.array(entry).default([]).describe('Hosts refused even when allowed (deny wins), in the same patterns.'),
    reasons: z
      .record(z.string(), z.string().min(1))
      .default({})
      .describe('The reason a refusal gives, by entry text as written in deny (or * for a host on neither list).'),
    ask: z
      .boolean()
      .default(false)
      .describe(
        "A host on neither list is put to a person through the session's approval channel (allow once, for this session, or reject; one request for every connection waiting on that host and port) instead of refused at once; with nobody to ask it is refused and says so.",
      ),
    testHostMap: z
      .record(z.string(), z.string().refine((ip) => isIP(ip) !== 0, { message: 'expected an IP address' }))
      .optional()
      .describe('For tests only: names the proxy answers with these addresses, with no address check. Never set it in production.'),
  })
  .strict();

export const networkSchema = z
  .union([z.enum(['allow', 'deny']), domainsSchema])
  .default('allow')
  .describe(
    "allow: every network. deny: no socket but netlink (see allowUnixSockets). {mode: 'domains', ...}: each session's commands get a network namespace of their own with only loopback; a proxy on the host lets through the hosts allowed and not denied, never to loopback, link-local, the metadata address, private ranges or the host's own addresses unless an entry names that IP.",
  );

export type NetworkConfig = z.output<typeof networkSchema>;
export type DomainsConfig = z.output<typeof domainsSchema>;
export type DomainsConfigInput = z.input<typeof domainsSchema>;

/** The proxy's policy for a domains configuration. */
export function proxyPolicy(config: DomainsConfig): NativeNetPolicy {
  return {
    allow: [...config.allow, ...config.presets.flatMap((name) => NETWORK_PRESETS[name])],
    deny: [...config.deny],
    reasons: { ...config.reasons },
    hostMap: { ...config.testHostMap },
    ask: config.ask,
  };
}

/** The managed environment of a domains-mode command: every client's proxy switches point at the listener on its
 * own namespace's loopback (HTTP, CONNECT and SOCKS5 share one port), and loopback itself goes direct. */
export function proxyEnv(): Record<string, string> {
  const http = `http://127.0.0.1:${PROXY_PORT}`;
  const socks = `socks5h://127.0.0.1:${PROXY_PORT}`;
  const direct = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    ALL_PROXY: socks,
    NO_PROXY: direct,
    http_proxy: http,
    https_proxy: http,
    all_proxy: socks,
    no_proxy: direct,
    NODE_USE_ENV_PROXY: '1',
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    GIT_SSH_COMMAND: `ssh -o ProxyCommand='${CONNECT_HELPER} %h %p'`,
    JAVA_TOOL_OPTIONS: `-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=${PROXY_PORT} -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=${PROXY_PORT} -Dhttp.nonProxyHosts=localhost|127.0.0.1`,
  };
}

/** The hosts a domains configuration lets commands reach, for the prompt. */
export function reachable(config: DomainsConfig): string[] {
  return proxyPolicy(config).allow;
}
