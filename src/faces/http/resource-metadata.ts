// OAuth 2.0 protected-resource metadata of the HTTP face (RFC 9728): its options, the document, where it is served,
// and the `resource_metadata` parameter a 401 challenge carries so a client finds it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ShellringError } from '../../errors.js';
import { replyError, replyText, RPC } from './reply.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const httpUrl = (what: string) => z.url({ protocol: /^https?$/, error: `expected an http or https URL (${what})` });

/** The `oauth` options of serveHttp and of a config file's `serve` section. */
export const resourceMetadataSchema = z
  .object({
    resource: httpUrl('the MCP endpoint as clients reach it')
      .optional()
      .describe('The MCP endpoint as clients reach it (behind a TLS proxy, its https URL). Default: built from each request\'s Host header and the endpoint path.'),
    authorizationServers: z
      .array(httpUrl('an authorization server\'s issuer'))
      .min(1)
      .optional()
      .describe('Issuer URLs of the OAuth authorization servers whose tokens a gateway in front of this server accepts; with them, 401 challenges name the metadata.'),
    scopesSupported: z.array(z.string().min(1)).optional().describe('Scopes the metadata lists as `scopes_supported`.'),
    resourceDocumentation: httpUrl('a page for people').optional().describe('A page for people about this server, listed as `resource_documentation`.'),
  })
  .strict();

export type ResourceMetadataOptions = z.input<typeof resourceMetadataSchema>;

export interface ResourceMetadataPlace {
  /** The MCP endpoint's path (`/mcp`). */
  endpoint: string;
  /** `host:port` to build URLs from when a request has no usable Host header. */
  fallbackHost: () => string;
}

export class ResourceMetadata {
  readonly #options: z.output<typeof resourceMetadataSchema>;
  readonly #place: ResourceMetadataPlace;
  readonly #paths: Set<string>;

  constructor(options: ResourceMetadataOptions | undefined, place: ResourceMetadataPlace) {
    const parsed = resourceMetadataSchema.safeParse(options ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ShellringError('SHELLRING_INVALID_CONFIG', `invalid oauth options: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    this.#options = parsed.data;
    this.#place = place;
    // RFC 9728 inserts the well-known path before the resource's own path; MCP clients then try the root.
    this.#paths = new Set([WELL_KNOWN, `${WELL_KNOWN}${place.endpoint}`]);
    if (parsed.data.resource !== undefined) this.#paths.add(metadataPath(new URL(parsed.data.resource)));
  }

  serves(pathname: string): boolean {
    return this.#paths.has(pathname);
  }

  /** The document, for GET and HEAD; it needs no token (it tells a client how to get one). */
  reply(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return replyError(res, 405, RPC.serverError, `Method not allowed: ${req.method ?? ''} (use GET)`, { allow: 'GET, HEAD' });
    }
    const options = this.#options;
    const document = {
      resource: this.#resource(req).href,
      ...(options.authorizationServers ? { authorization_servers: options.authorizationServers } : {}),
      ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'shellring',
      ...(options.resourceDocumentation ? { resource_documentation: options.resourceDocumentation } : {}),
    };
    replyText(res, 200, `${JSON.stringify(document, null, 2)}\n`, 'application/json');
  }

  /**
   * The challenge's `resource_metadata` parameter (with its leading comma), only where authorization servers are
   * configured: without one the document offers nothing beyond "send a bearer header", and the plain challenge
   * stays as it always was.
   */
  challengeParameter(req: IncomingMessage): string {
    if (!this.#options.authorizationServers) return '';
    return `, resource_metadata="${metadataUrl(this.#resource(req))}"`;
  }

  #resource(req: IncomingMessage): URL {
    if (this.#options.resource !== undefined) return new URL(this.#options.resource);
    return new URL(this.#place.endpoint, `http://${usableHost(req.headers.host) ?? this.#place.fallbackHost()}`);
  }
}

/** The metadata URL of a resource: the well-known path inserted between its host and its path. */
function metadataUrl(resource: URL): string {
  return `${resource.origin}${metadataPath(resource)}`;
}

function metadataPath(resource: URL): string {
  return resource.pathname === '/' ? WELL_KNOWN : `${WELL_KNOWN}${resource.pathname}`;
}

/** A Host header as a URL would normalize it, or undefined when it is not one (it must not break the header). */
function usableHost(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    const { host, username, password, pathname } = new URL(`http://${header}`);
    return username || password || pathname !== '/' ? undefined : host;
  } catch {
    return undefined;
  }
}
