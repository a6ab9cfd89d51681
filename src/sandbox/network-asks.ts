// Questions the proxy puts about hosts a session's domain policy does not list: one listener on the binding per
// process, each runtime's questions routed to it by its key prefix, every question answered exactly once.
import { loadBinding } from '../native/loader.js';
import { networkApprovalReason } from '../contract/index.js';
import { askApproval, type ApprovalConfig, type ApprovalHandler, type ApprovalOutcome } from './approval.js';

/** What the proxy is told: these connections go through, or for the session, or why they are refused. */
export type NetworkAnswer = 'once' | 'session' | 'rejected' | 'unanswered' | 'nobody';

/** How long a connection waits for a person (the proxy gives up a minute later: crates/netproxy/src/proxy.rs). */
export const NETWORK_ASK_MS = 10 * 60 * 1000;

/** Asks about `host`:`port` for a session of one runtime; `signal` aborts when the wait is over. */
export type NetworkAsker = (sessionId: string, host: string, port: number, signal: AbortSignal) => Promise<NetworkAnswer>;

/** How a runtime's sandbox receives its questions: by session, each with the signal that ends its wait. */
type Route = (sessionId: string, host: string, port: number) => Promise<NetworkAnswer>;

const askers = new Map<string, Route>();
let listening = false;

/** Routes the questions of the sessions keyed `prefix…` to `ask` until the returned function is called. */
export function routeNetworkAsks(prefix: string, ask: Route): () => void {
  if (!listening) {
    loadBinding().netOnAsk(onAsk);
    listening = true;
  }
  askers.set(prefix, ask);
  return () => {
    if (askers.get(prefix) === ask) askers.delete(prefix);
  };
}

function onAsk(key: string, host: string, port: number): void {
  const prefix = key.slice(0, key.indexOf(':') + 1);
  const ask = askers.get(prefix);
  const answer = ask ? ask(key.slice(prefix.length), host, port).catch(() => 'nobody' as const) : Promise.resolve('nobody' as const);
  void answer.then((decided) => loadBinding().netAnswer(key, host, port, decided));
}

/** A person's decision as the proxy takes it: a cancelled request (timed out, or its session closed) went unanswered. */
export function networkAnswer(outcome: ApprovalOutcome): NetworkAnswer {
  switch (outcome) {
    case 'allowed-once':
      return 'once';
    case 'allowed-always':
      return 'session';
    case 'rejected':
      return 'rejected';
    case 'cancelled':
      return 'unanswered';
    default:
      return 'nobody';
  }
}

/** Asks through the session's own channel, else the runtime's; with neither (or under policy `never`), nobody can. */
export async function askAboutHost(
  channel: ApprovalHandler | undefined,
  config: ApprovalConfig | undefined,
  request: { sessionId: string; host: string; port: number; signal: AbortSignal },
): Promise<NetworkAnswer> {
  const handler = channel ?? config?.request;
  if (!handler || config?.policy === 'never') return 'nobody';
  const reason = networkApprovalReason(request.host, request.port);
  return networkAnswer(await askApproval({ request: handler }, { kind: 'network', ...request, reason }));
}
