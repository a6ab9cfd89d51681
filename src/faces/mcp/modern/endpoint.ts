// The 2026-07-28 side of `serve`'s one MCP endpoint: which requests it claims, who sent them (the principal), and
// the SDK's per-request handler that answers them with this instance's states and tasks.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Runtime } from '../../../runtime/runtime.js';
import type { HttpSessions } from '../sessions.js';
import type { SessionRoutes } from '../routes.js';
import { ShellringError } from '../../../errors.js';
import { presentedToken } from '../../http/token.js';
import { ModernFace } from './face.js';
import { serveThroughFetch } from './node-fetch.js';
import { MODERN_VERSIONS } from './opening.js';
import { StateCodec } from './request-state.js';
import { ModernStates } from './states.js';

export interface ModernEndpointOptions {
  runtime: Runtime;
  routes: SessionRoutes;
  cwd: string;
  instanceId?: string;
  maxBodyBytes?: number;
  /** The 2025 sessions' bookkeeping, which counts 2026 calls too (caps, drain, metrics, observers). */
  sessions: HttpSessions;
  clock?: () => number;
  /** How often a call that carries a progress token is told about. */
  progressIntervalMs?: number;
  /** Judges a new state (a handle, or a principal's default) before it is made: a refusal's text, or undefined. */
  admitState?: () => string | undefined;
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export class ModernEndpoint {
  readonly instanceId: string;
  readonly #face: ModernFace;
  readonly #handler: McpHttpHandler;

  constructor(options: ModernEndpointOptions) {
    const instanceId = checkInstanceId(options.instanceId) ?? randomBytes(6).toString('base64url');
    this.instanceId = instanceId;
    const { sessions } = options;
    const states = new ModernStates({
      runtime: options.runtime,
      routes: options.routes,
      instanceId,
      cwd: options.cwd,
      onSession: (session) => sessions.track(session),
      admit: options.admitState,
      clock: options.clock,
    });
    this.#face = new ModernFace({ runtime: options.runtime, states, codec: new StateCodec(instanceId), admit: (id, tool) => sessions.admit(id, tool), progressIntervalMs: options.progressIntervalMs });
    this.#handler = createMcpHandler((ctx) => this.#face.server((request) => request.http?.authInfo?.clientId ?? ctx.authInfo?.clientId ?? 'anonymous'), {
      legacy: 'reject',
      maxRequestBodySize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    });
  }

  /**
   * A request this side answers: no 2025 session id, and a protocol version header naming a revision of the
   * per-request era. A 2025 client sends no version header on initialize and its session id afterwards, so every
   * 2025 request keeps its existing path byte for byte.
   */
  claims(req: IncomingMessage): boolean {
    if (req.headers['mcp-session-id'] !== undefined) return false;
    const version = req.headers['mcp-protocol-version'];
    return typeof version === 'string' && (MODERN_VERSIONS.includes(version) || version > MODERN_VERSIONS[0]!);
  }

  handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const principal = principalOf(req);
    return serveThroughFetch((request) => this.#handler.fetch(request, { authInfo: { token: '', clientId: principal, scopes: [] } }), req, res);
  }

  /** States open now: principals' defaults and handles. */
  get size(): number {
    return this.#face.states.size;
  }

  expireIdle(idleMs: number): void {
    this.#face.states.expireIdle(idleMs);
    this.#face.tasks.sweep();
  }

  async close(): Promise<void> {
    await this.#handler.close();
    await this.#face.states.closeAll();
  }
}

/** An instance id goes in front of a dot in handles, task ids and states, and into a proxy's server names. */
export function checkInstanceId(id: string | undefined): string | undefined {
  if (id !== undefined && !INSTANCE_ID.test(id)) {
    throw new ShellringError('SHELLRING_INVALID_CONFIG', `invalid instance id ${JSON.stringify(id)}: expected 1 to 64 letters, digits, "_" or "-"`);
  }
  return id;
}

/**
 * The principal is the credential that passed the token check, by digest: every holder of one bearer token is one
 * principal (what the token authorises is all the server knows of who calls). The token, not the header: `bearer`
 * and `Bearer  ` spell the same credential, and must not make one more default state each.
 */
function principalOf(req: IncomingMessage): string {
  const token = presentedToken(req).token ?? '';
  return `bearer:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`;
}
