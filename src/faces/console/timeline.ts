// Each session's tool calls as cards (label, command, cwd, result and exit pill), kept from the runtime's call events.
import { resolve } from 'node:path';
import { foregroundExit } from '../../contract/exit-status.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { CallEvent } from '../../runtime/session.js';
import type { ToolResult } from '../../tools/tool.js';

/** Most cards kept per session; older ones leave the timeline (the model's transcript keeps them). */
export const CARDS_PER_SESSION = 200;
/** Most characters of a result a card keeps (its end): the whole output is in the spill file or the job. */
export const CARD_TEXT_CHARS = 8192;
/** Most characters of a command a card keeps. */
export const CARD_COMMAND_CHARS = 4096;
/**
 * What one session's cards may hold, in bytes (two per character: the worst case of a V8 string). Past it the
 * oldest cards lose their result text first (the card stays, saying how much is not shown), then whole cards go.
 */
export const TIMELINE_BYTES_PER_SESSION = 256 * 1024;
/** Bytes counted for a card besides its texts (the object, its ids and numbers). */
const CARD_OVERHEAD_BYTES = 512;
/** How often cards of closed sessions are forgotten, when no page asks for a snapshot meanwhile. */
const PRUNE_MS = 5000;

export interface CardResult {
  isError: boolean;
  /** The result's structured kind: `foreground`, `background` (a start) or `promoted` (moved at its timeout). */
  kind?: string;
  /** The body the model read, without a final exit marker (for foreground bash results). */
  text: string;
  /** Characters cut from the start of `text`. */
  cut: number;
  exitCode?: number | null;
  signal?: string;
  /** The reason a person gave when stopping a foreground command. */
  stopped?: string;
  spills: string[];
}

export interface CallCard {
  callId: string;
  sessionId: string;
  tool: string;
  startedAt: number;
  endedAt?: number;
  description?: string;
  command?: string;
  cwd?: string;
  background?: boolean;
  /** The wider mode the call asked for, and why. */
  escalation?: { mode: string; justification?: string };
  /** Arguments of tools other than bash, as text. */
  argsText?: string;
  result?: CardResult;
  /**
   * The call returned to ask its client for an answer (an approval, MCP 2026-07-28) and waits for its retry until
   * this time; `result` is what the model reads if none comes.
   */
  suspendedUntil?: number;
}

interface SessionCards {
  cards: Map<string, CallCard>;
  /** Cards whose call returned to ask its client and waits for the retry (suspendedUntil set). */
  suspended: Set<CallCard>;
  /** What the cards hold now, counted as `cardBytes` does. */
  bytes: number;
}

export class Timeline {
  readonly #sessions = new Map<string, SessionCards>();
  /** Bytes every session's cards hold: for /metrics. */
  #bytes = 0;
  readonly #lastActivity = new Map<string, number>();
  readonly #listeners = new Set<(card: CallCard) => void>();
  readonly #cwd: (sessionId: string) => string | undefined;
  readonly #unlisten: () => void;
  readonly #pruning: NodeJS.Timeout;

  constructor(runtime: Runtime) {
    this.#cwd = (id) => runtime.sessions().find((session) => session.id === id)?.cwd;
    this.#unlisten = runtime.on('call', (event) => this.#record(event));
    // Sessions close without an event; a server nobody watches must still forget their cards.
    this.#pruning = setInterval(() => this.prune(new Set(runtime.sessions().map((session) => session.id))), PRUNE_MS);
    this.#pruning.unref();
  }

  cards(sessionId: string): CallCard[] {
    return [...(this.#sessions.get(sessionId)?.cards.values() ?? [])];
  }

  card(sessionId: string, callId: string): CallCard | undefined {
    return this.#sessions.get(sessionId)?.cards.get(callId);
  }

  /** Bytes the cards of every session hold (two per character), at most TIMELINE_BYTES_PER_SESSION each. */
  get retainedBytes(): number {
    return this.#bytes;
  }

  /** Calls of the session that wait for their client's answer to an approval, until their time runs out. */
  awaiting(sessionId: string, now = Date.now()): number {
    const suspended = this.#sessions.get(sessionId)?.suspended;
    if (!suspended) return 0;
    for (const card of suspended) if (card.suspendedUntil! <= now) suspended.delete(card);
    return suspended.size;
  }

  lastActivity(sessionId: string): number | undefined {
    return this.#lastActivity.get(sessionId);
  }

  touch(sessionId: string, at = Date.now()): void {
    this.#lastActivity.set(sessionId, Math.max(at, this.#lastActivity.get(sessionId) ?? 0));
  }

  /** Forgets sessions that are no longer open. */
  prune(open: Set<string>): void {
    for (const [id, session] of this.#sessions) {
      if (open.has(id)) continue;
      this.#bytes -= session.bytes;
      this.#sessions.delete(id);
    }
    for (const id of this.#lastActivity.keys()) if (!open.has(id)) this.#lastActivity.delete(id);
  }

  onCard(listener: (card: CallCard) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    clearInterval(this.#pruning);
    this.#unlisten();
    this.#listeners.clear();
  }

  #record(event: CallEvent): void {
    this.touch(event.sessionId, event.at);
    let session = this.#sessions.get(event.sessionId);
    if (!session) this.#sessions.set(event.sessionId, (session = { cards: new Map(), suspended: new Set(), bytes: 0 }));
    let card = session.cards.get(event.callId);
    if (event.type === 'started' && !card) {
      card = this.#started(event);
      session.cards.set(card.callId, card);
      this.#count(session, cardBytes(card));
    } else {
      if (!card) return;
      const before = cardBytes(card);
      if (event.type === 'started') {
        // The retry that answers a suspended call continues its card.
        delete card.endedAt;
        delete card.result;
        delete card.suspendedUntil;
        session.suspended.delete(card);
      } else {
        card.endedAt = event.at;
        card.result = cardResult(event.result);
        if (event.suspendedUntil !== undefined) {
          card.suspendedUntil = event.suspendedUntil;
          session.suspended.add(card);
        }
      }
      this.#count(session, cardBytes(card) - before);
    }
    this.#bound(session, card);
    for (const listener of this.#listeners) listener(card);
  }

  #count(session: SessionCards, bytes: number): void {
    session.bytes += bytes;
    this.#bytes += bytes;
  }

  /** Keeps the session within its card count and bytes; `newest` keeps its text whatever it holds. */
  #bound(session: SessionCards, newest: CallCard): void {
    const { cards } = session;
    // Maps iterate in insertion order: the first keys are the oldest cards.
    for (const [id, card] of cards) {
      if (cards.size <= CARDS_PER_SESSION) break;
      this.#count(session, -cardBytes(card));
      cards.delete(id);
      session.suspended.delete(card);
    }
    for (const card of cards.values()) {
      if (session.bytes <= TIMELINE_BYTES_PER_SESSION || card === newest) break;
      if (!card.result || card.result.text === '') continue;
      const before = cardBytes(card);
      card.result = { ...card.result, cut: card.result.cut + card.result.text.length, text: '' };
      this.#count(session, cardBytes(card) - before);
    }
    for (const [id, card] of cards) {
      if (session.bytes <= TIMELINE_BYTES_PER_SESSION || card === newest) break;
      this.#count(session, -cardBytes(card));
      cards.delete(id);
      session.suspended.delete(card);
    }
  }

  #started(event: Extract<CallEvent, { type: 'started' }>): CallCard {
    const card: CallCard = { callId: event.callId, sessionId: event.sessionId, tool: event.tool, startedAt: event.at };
    const args = (event.args ?? {}) as Record<string, unknown>;
    if (event.tool !== 'bash') {
      card.argsText = capped(safeJson(args), 2000);
      return card;
    }
    if (typeof args.description === 'string') card.description = capped(args.description, 500);
    if (typeof args.command === 'string') card.command = capped(args.command, CARD_COMMAND_CHARS);
    const base = this.#cwd(event.sessionId);
    if (base) card.cwd = typeof args.workdir === 'string' ? resolve(base, args.workdir) : base;
    if (args.run_in_background === true) card.background = true;
    if (typeof args.sandbox_permissions === 'string') {
      card.escalation = {
        mode: capped(args.sandbox_permissions, 100),
        ...(typeof args.justification === 'string' ? { justification: capped(args.justification, 2000) } : {}),
      };
    }
    return card;
  }
}

function cardResult(result: ToolResult): CardResult {
  const full = result.content.map((part) => part.text).join('');
  const value = result.structuredContent ?? {};
  const foreground = !result.isError && value.kind === 'foreground';
  const status = foreground ? foregroundExit(full, value) : undefined;
  const body = status ? status.output : full;
  const cut = Math.max(0, body.length - CARD_TEXT_CHARS);
  const spills = [value.stdout, value.stderr]
    .map((stream) => (stream as { spillPath?: unknown } | undefined)?.spillPath)
    .filter((path): path is string => typeof path === 'string');
  return {
    isError: result.isError === true,
    ...(typeof value.kind === 'string' ? { kind: value.kind } : {}),
    text: copied(body.slice(cut)),
    cut,
    ...(status ? ('signal' in status ? { signal: status.signal } : { exitCode: status.exitCode }) : {}),
    ...(foreground && typeof value.stopped === 'string' ? { stopped: value.stopped } : {}),
    spills,
  };
}

/** What a card holds, in bytes: two per character of its texts (V8 keeps non-Latin-1 strings that way). */
function cardBytes(card: CallCard): number {
  let chars = (card.description?.length ?? 0) + (card.command?.length ?? 0) + (card.cwd?.length ?? 0) + (card.argsText?.length ?? 0);
  chars += (card.escalation?.mode.length ?? 0) + (card.escalation?.justification?.length ?? 0);
  if (card.result) chars += card.result.text.length + card.result.spills.reduce((sum, path) => sum + path.length, 0);
  return CARD_OVERHEAD_BYTES + 2 * chars;
}

function capped(text: string, max: number): string {
  return text.length <= max ? text : copied(`${text.slice(0, max)}…`);
}

/**
 * A string that owns its characters: a slice of a large string may share (and so keep alive) the whole of it, which
 * would make a card hold the full result it was meant to cut.
 */
function copied(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '(arguments not representable)';
  }
}
