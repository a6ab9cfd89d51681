// Each session's tool calls as cards (label, command, cwd, result and exit pill), kept from the runtime's call events.
import { resolve } from 'node:path';
import { parseExitStatus } from '../../contract/exit-status.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { CallEvent } from '../../runtime/session.js';
import type { ToolResult } from '../../tools/tool.js';

/** Most cards kept per session; older ones leave the timeline (the model's transcript keeps them). */
export const CARDS_PER_SESSION = 200;
/** Most characters of a result a card keeps: the whole output is in the spill file. */
export const CARD_TEXT_CHARS = 65_536;

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
}

export class Timeline {
  readonly #cards = new Map<string, Map<string, CallCard>>();
  readonly #lastActivity = new Map<string, number>();
  readonly #listeners = new Set<(card: CallCard) => void>();
  readonly #cwd: (sessionId: string) => string | undefined;
  readonly #unlisten: () => void;

  constructor(runtime: Runtime) {
    this.#cwd = (id) => runtime.sessions().find((session) => session.id === id)?.cwd;
    this.#unlisten = runtime.on('call', (event) => this.#record(event));
  }

  cards(sessionId: string): CallCard[] {
    return [...(this.#cards.get(sessionId)?.values() ?? [])];
  }

  card(sessionId: string, callId: string): CallCard | undefined {
    return this.#cards.get(sessionId)?.get(callId);
  }

  lastActivity(sessionId: string): number | undefined {
    return this.#lastActivity.get(sessionId);
  }

  touch(sessionId: string, at = Date.now()): void {
    this.#lastActivity.set(sessionId, Math.max(at, this.#lastActivity.get(sessionId) ?? 0));
  }

  /** Forgets sessions that are no longer open. */
  prune(open: Set<string>): void {
    for (const id of this.#cards.keys()) if (!open.has(id)) this.#cards.delete(id);
    for (const id of this.#lastActivity.keys()) if (!open.has(id)) this.#lastActivity.delete(id);
  }

  onCard(listener: (card: CallCard) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#unlisten();
    this.#listeners.clear();
  }

  #record(event: CallEvent): void {
    this.touch(event.sessionId, event.at);
    let cards = this.#cards.get(event.sessionId);
    if (!cards) this.#cards.set(event.sessionId, (cards = new Map()));
    let card = cards.get(event.callId);
    if (event.type === 'started') {
      card = this.#started(event);
      cards.set(card.callId, card);
      // Maps iterate in insertion order: the first keys are the oldest cards.
      for (const id of cards.keys()) {
        if (cards.size <= CARDS_PER_SESSION) break;
        cards.delete(id);
      }
    } else {
      if (!card) return;
      card.endedAt = event.at;
      card.result = cardResult(event.result);
    }
    for (const listener of this.#listeners) listener(card);
  }

  #started(event: Extract<CallEvent, { type: 'started' }>): CallCard {
    const card: CallCard = { callId: event.callId, sessionId: event.sessionId, tool: event.tool, startedAt: event.at };
    const args = (event.args ?? {}) as Record<string, unknown>;
    if (event.tool !== 'bash') {
      card.argsText = capped(safeJson(args), 2000);
      return card;
    }
    if (typeof args.description === 'string') card.description = capped(args.description, 500);
    if (typeof args.command === 'string') card.command = capped(args.command, 20_000);
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
  const status = foreground ? parseExitStatus(full) : undefined;
  const body = status ? status.output : full;
  const cut = Math.max(0, body.length - CARD_TEXT_CHARS);
  const spills = [value.stdout, value.stderr]
    .map((stream) => (stream as { spillPath?: unknown } | undefined)?.spillPath)
    .filter((path): path is string => typeof path === 'string');
  return {
    isError: result.isError === true,
    ...(typeof value.kind === 'string' ? { kind: value.kind } : {}),
    text: body.slice(cut),
    cut,
    ...(status ? ('signal' in status ? { signal: status.signal } : { exitCode: status.exitCode }) : {}),
    ...(foreground && typeof value.stopped === 'string' ? { stopped: value.stopped } : {}),
    spills,
  };
}

function capped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '(arguments not representable)';
  }
}
