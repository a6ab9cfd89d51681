// OAuth protected-resource metadata (RFC 9728) on the HTTP face: the document over real HTTP, its discovery by the
// official SDK's client code, the 401 challenge that names it, and static bearer tokens working beside it.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { call, cli, httpTransport, newClient, rawRequest, textOf, workdir, type RawAnswer } from './helpers.js';

const work = workdir('resource-metadata');
const TOKEN = 'resource-metadata-token-0123456789';
const OAUTH = {
  resource: 'https://shell.example.com/tools/mcp',
  authorizationServers: ['https://auth.example.com/tenant'],
  scopesSupported: ['shellring.bash'],
  resourceDocumentation: 'https://shell.example.com/docs',
};
let plain: HttpServer;
let configured: HttpServer;

function raw(server: HttpServer, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<RawAnswer> {
  return rawRequest(server.port, path, { method, headers, body });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

beforeAll(async () => {
  plain = await serveHttp({ port: 0, cwd: work, token: TOKEN });
  configured = await serveHttp({ port: 0, cwd: work, token: TOKEN, oauth: OAUTH });
});

afterAll(async () => {
  await plain.close();
  await configured.close();
  rmSync(work, { recursive: true, force: true });
});

describe('protected-resource metadata', () => {
  it('is served without a token at the root and at the endpoint path, naming the endpoint as the resource', async () => {
    const expected = {
      resource: `http://127.0.0.1:${plain.port}/mcp`,
      bearer_methods_supported: ['header'],
      resource_name: 'shellring',
    };
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const answer = await raw(plain, path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(JSON.parse(answer.body)).toEqual(expected);
    }
    // The resource follows the name the client used to reach the server.
    const byName = await raw(plain, '/.well-known/oauth-protected-resource', { host: `localhost:${plain.port}` });
    expect(JSON.parse(byName.body).resource).toBe(`http://localhost:${plain.port}/mcp`);
  });

  it('is found by the SDK client’s own discovery from the endpoint URL', async () => {
    const found = await discoverOAuthProtectedResourceMetadata(plain.url);
    expect(found.resource).toBe(plain.url);
    expect(found.bearer_methods_supported).toEqual(['header']);
    const withServers = await discoverOAuthProtectedResourceMetadata(configured.url);
    expect(withServers.authorization_servers).toEqual(OAUTH.authorizationServers);
  });

  it('lists the configured resource, authorization servers, scopes and documentation', async () => {
    const document = {
      resource: OAUTH.resource,
      authorization_servers: OAUTH.authorizationServers,
      scopes_supported: OAUTH.scopesSupported,
      bearer_methods_supported: ['header'],
      resource_name: 'shellring',
      resource_documentation: OAUTH.resourceDocumentation,
    };
    // The public path (behind a proxy) and the local endpoint's path both answer.
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/tools/mcp']) {
      const answer = await raw(configured, path);
      expect(answer.status, path).toBe(200);
      expect(JSON.parse(answer.body)).toEqual(document);
    }
    expect((await raw(configured, '/.well-known/oauth-protected-resource/other')).status).toBe(401);
  });

  it('answers other methods with 405', async () => {
    const answer = await raw(plain, '/.well-known/oauth-protected-resource', { 'content-type': 'application/json' }, 'POST', '{}');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
  });
});

describe('401 challenges', () => {
  it('name the metadata when authorization servers are configured, beside the same messages', async () => {
    const metadata = 'https://shell.example.com/.well-known/oauth-protected-resource/tools/mcp';
    const missing = await raw(configured, '/mcp', mcpHeaders, 'POST', initialize);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(`Bearer realm="shellring", resource_metadata="${metadata}"`);
    expect(JSON.parse(missing.body).error.message).toBe('Unauthorized: a bearer token is required (Authorization: Bearer <token>)');
    const wrong = await raw(configured, '/mcp', { ...mcpHeaders, authorization: 'Bearer not-the-token' }, 'POST', initialize);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe(`Bearer realm="shellring", error="invalid_token", resource_metadata="${metadata}"`);
    expect(JSON.parse(wrong.body).error.message).toBe('Unauthorized: invalid token');
  });

  it('build the metadata URL from the Host header when no resource is configured', async () => {
    const server = await serveHttp({ port: 0, cwd: work, token: TOKEN, oauth: { authorizationServers: ['https://auth.example.com'] } });
    try {
      const answer = await raw(server, '/mcp', { ...mcpHeaders, host: `localhost:${server.port}` }, 'POST', initialize);
      expect(answer.headers['www-authenticate']).toBe(
        `Bearer realm="shellring", resource_metadata="http://localhost:${server.port}/.well-known/oauth-protected-resource/mcp"`,
      );
    } finally {
      await server.close();
    }
  });

  it('stay as they were without authorization servers', async () => {
    const missing = await raw(plain, '/mcp', mcpHeaders, 'POST', initialize);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="shellring"');
    const wrong = await raw(plain, '/mcp', { ...mcpHeaders, authorization: 'Bearer not-the-token' }, 'POST', initialize);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="shellring", error="invalid_token"');
  });
});

describe('static bearer tokens', () => {
  it('keep working with the metadata configured', async () => {
    const tc = newClient('static-token');
    await tc.client.connect(httpTransport(configured.url, TOKEN));
    expect(textOf(await call(tc.client, 'bash', { command: 'echo static', description: 'say static' }))).toBe('static\n');
    await tc.client.close();
  });
});

describe('options', () => {
  it('refuses a URL that is not http or https, naming the option', async () => {
    await expect(serveHttp({ port: 0, cwd: work, token: TOKEN, oauth: { authorizationServers: ['ftp://auth.example.com'] } })).rejects.toThrow(
      "invalid oauth options: authorizationServers.0: expected an http or https URL (an authorization server's issuer)",
    );
    await expect(serveHttp({ port: 0, cwd: work, token: TOKEN, oauth: { authorizationServers: [] } })).rejects.toThrow(
      'invalid oauth options: authorizationServers:',
    );
  });

  it('refuses a bad --authorization-server or --resource-url on the command line', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, 'serve', '--cwd', work, ...args], { encoding: 'utf8', timeout: 60_000 });
    const server = run('--authorization-server', 'not a url');
    expect(server.status).toBe(2);
    expect(server.stderr).toContain("invalid --authorization-server: expected an http or https URL (an authorization server's issuer)");
    const resource = run('--resource-url', 'mailto:me@example.com');
    expect(resource.status).toBe(2);
    expect(resource.stderr).toContain('invalid --resource-url: expected an http or https URL (the MCP endpoint as clients reach it)');
  });
});
