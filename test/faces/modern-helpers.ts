// The official 2026-07-28 SDK client (@modelcontextprotocol/client) against shellring, and a raw JSON-RPC caller over
// the same SDK transports for what that client does not speak (the tasks extension: it rejects `resultType: "task"`).
import { Client, type Transport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { assertConforms } from '../helpers/output-schemas.js';

export const MODERN = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

export type Decision = 'allow-once' | 'allow-always' | 'reject';

export interface ModernClient {
  client: Client;
  /** Messages of the elicitations the server asked for. */
  asked: string[];
  /** What the next elicitation is answered. */
  answer: { decision: Decision };
  /** Its tool list, once fetched (results are checked against it). */
  listing?: Promise<{ name: string; outputSchema?: Record<string, unknown> }[]>;
}

/** A client pinned to 2026-07-28 that can answer form elicitations (the input requests of an approval). */
export async function modernClient(transport: Transport, name = 'modern-test'): Promise<ModernClient> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  const answer = { decision: 'allow-once' as Decision };
  client.setRequestHandler('elicitation/create', (request) => {
    asked.push((request.params as { message: string }).message);
    return { action: 'accept', content: { decision: answer.decision } };
  });
  await client.connect(transport);
  return { client, asked, answer };
}

export interface RawReply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** JSON-RPC requests with the 2026 envelope (declaring the tasks extension) over an SDK transport. */
export class RawModern {
  readonly #transport: Transport;
  readonly #waiting = new Map<number, (reply: RawReply) => void>();
  #next = 1;

  readonly #capabilities: Record<string, unknown>;

  /** `capabilities`: declared besides the tasks extension (an eliciting client adds `elicitation`). */
  constructor(transport: Transport, capabilities: Record<string, unknown> = {}) {
    this.#transport = transport;
    this.#capabilities = capabilities;
    transport.onmessage = (message: JSONRPCMessage) => {
      const reply = message as { id?: number; result?: Record<string, unknown>; error?: RawReply['error'] };
      if (typeof reply.id === 'number') this.#waiting.get(reply.id)?.({ result: reply.result, error: reply.error });
    };
  }

  start(): Promise<void> {
    return this.#transport.start();
  }

  request(method: string, params: Record<string, unknown>, headers?: Record<string, string>): Promise<RawReply> {
    return this.requestAs({ name: 'raw-test', version: '1.0.0' }, method, params, headers);
  }

  /** A request whose envelope describes the client as `clientInfo`. */
  requestAs(clientInfo: Record<string, unknown>, method: string, params: Record<string, unknown>, headers?: Record<string, string>): Promise<RawReply> {
    const id = this.#next++;
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': clientInfo,
      'io.modelcontextprotocol/clientCapabilities': { ...this.#capabilities, extensions: { [TASKS]: {} } },
    };
    const reply = new Promise<RawReply>((resolve) => this.#waiting.set(id, resolve));
    void this.#transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } } as JSONRPCMessage, headers ? { headers } : undefined);
    if (method !== 'tools/call') return reply;
    // A tool's own result (not a task, not a request for input) must conform to its outputSchema.
    return reply.then(async (answer) => {
      const result = answer.result;
      if (result && result.resultType !== 'task' && result.resultType !== 'input_required') assertConforms(await this.tools(), params.name as string, result);
      return answer;
    });
  }

  /** Polls tasks/get until the task leaves `working`; a completed task's result must conform to the outputSchema
   * of the tool that made it (`tool`). */
  async settled(taskId: string, tool = 'bash'): Promise<Record<string, unknown>> {
    for (;;) {
      const { result, error } = await this.request('tasks/get', { taskId });
      if (error) throw new Error(`tasks/get failed: ${error.message}`);
      if (result!.status === 'completed') assertConforms(await this.tools(), tool, result!.result as object);
      if (result!.status !== 'working') return result!;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  #tools: Promise<{ name: string; outputSchema?: Record<string, unknown> }[]> | undefined;

  /** The tool list, fetched once. */
  tools(): Promise<{ name: string; outputSchema?: Record<string, unknown> }[]> {
    this.#tools ??= this.request('tools/list', {}).then(({ result }) => result!.tools as { name: string; outputSchema?: Record<string, unknown> }[]);
    return this.#tools;
  }

  close(): Promise<void> {
    return this.#transport.close();
  }
}

export function textOfResult(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
}

/** A call through the official client whose result, when it succeeds, must conform to its tool's outputSchema. */
export async function checkedCall(mc: ModernClient, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await mc.client.callTool({ name, arguments: args })) as Record<string, unknown>;
  mc.listing ??= mc.client.listTools().then((listed) => listed.tools as { name: string; outputSchema?: Record<string, unknown> }[]);
  assertConforms(await mc.listing, name, result);
  return result;
}
