// The domain network mode's configuration: entries validated once (zod) with the proxy's own grammar, presets
// expanded to their exact hosts, and 'allow' and 'deny' unchanged.
import { describe, expect, it } from 'vitest';
import { sandboxConfigSchema } from '../../src/sandbox/config.js';
import { NETWORK_PRESETS, proxyEnv, proxyPolicy } from '../../src/sandbox/network-config.js';
import { loadBinding } from '../../src/native/loader.js';

const parse = (network: unknown) => sandboxConfigSchema.safeParse({ network });

describe('sandbox.network', () => {
  it("keeps 'allow' (the default) and 'deny' as they were", () => {
    expect(sandboxConfigSchema.parse({}).network).toBe('allow');
    expect(parse('deny').data?.network).toBe('deny');
    expect(parse('some').success).toBe(false);
  });

  it('accepts every entry shape the proxy reads, and the proxy takes them', () => {
    const allow = ['registry.npmjs.org', '*.example.com', 'host.test:8080', '*', '10.0.0.5', '[::1]:443', 'fd00::1', 'a_b.test.'];
    const parsed = parse({ mode: 'domains', allow, deny: ['evil.example.com'], presets: ['npm', 'pypi'], reasons: { 'evil.example.com': 'no' } });
    expect(parsed.success).toBe(true);
    const policy = proxyPolicy(parsed.data!.network as never);
    expect(policy.allow).toEqual([...allow, 'registry.npmjs.org', 'pypi.org', 'files.pythonhosted.org']);
    expect(() => loadBinding().netSetPolicy('config-test', policy)).not.toThrow();
    loadBinding().netDetach('config-test');
  });

  it('refuses what the proxy could not read, naming the entry', () => {
    for (const bad of ['', 'a b', '*.', 'host:0', 'host:70000', 'host:x', '[::1', '[nope]:1', 'a..b', `${'a'.repeat(64)}.test`]) {
      const parsed = parse({ mode: 'domains', allow: [bad] });
      expect(parsed.success, bad).toBe(false);
      expect(parsed.error!.issues[0]!.message, bad).toContain(`network entry ${JSON.stringify(bad)}`);
      expect(() => loadBinding().netSetPolicy('config-test', { allow: [bad], deny: [], reasons: {}, hostMap: {} }), bad).toThrow();
    }
    expect(parse({ mode: 'domains', presets: ['maven'] }).success).toBe(false);
    expect(parse({ mode: 'domains', testHostMap: { 'a.test': 'localhost' } }).success).toBe(false);
    expect(parse({ mode: 'domains', extra: 1 }).success).toBe(false);
  });

  it('names the exact hosts of each preset', () => {
    expect(NETWORK_PRESETS.crates).toEqual(['crates.io', 'static.crates.io', 'index.crates.io']);
    expect(NETWORK_PRESETS.github).toContain('codeload.github.com');
    expect(NETWORK_PRESETS.debian).toContain('deb.debian.org');
  });

  it("points every client's proxy switch at the namespace's listener", () => {
    const env = proxyEnv();
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) expect(env[name]).toBe('http://127.0.0.1:3128');
    expect(env.ALL_PROXY).toBe('socks5h://127.0.0.1:3128');
    expect(env.NO_PROXY).toBe('localhost,127.0.0.1,::1');
    expect(env.NODE_USE_ENV_PROXY).toBe('1');
    expect(env.JAVA_TOOL_OPTIONS).toContain('-Dhttps.proxyPort=3128');
  });
});
