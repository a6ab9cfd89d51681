// The official 2026-07-28 SDK client (@modelcontextprotocol/client) against shellring, and a raw JSON-RPC caller over
// the same SDK transports for what that client does not speak (the tasks extension: it rejects `resultType: "task"`).
import { Client, type Transport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

export type Decision = 'allow-once' | 'allow-always' | 'reject';

export interface ModernClient {
  client: Client;
  /** Messages of the elicitations the server asked for. */
  asked: string[];
  /** What the next elicitation is answered. */
  answer: { decision: Decision };
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
    const id = this.#next++;
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { ...this.#capabilities, extensions: { [TASKS]: {} } },
    };
    const reply = new Promise<RawReply>((resolve) => this.#waiting.set(id, resolve));
    void this.#transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } } as JSONRPCMessage, headers ? { headers } : undefined);
    return reply;
  }

  /** Polls tasks/get until the task leaves `working`. */
  async settled(taskId: string): Promise<Record<string, unknown>> {
    for (;;) {
      const { result, error } = await this.request('tasks/get', { taskId });
      if (error) throw new Error(`tasks/get failed: ${error.message}`);
      if (result!.status !== 'working') return result!;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): Promise<void> {
    return this.#transport.close();
  }
}

export function textOfResult(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
}
