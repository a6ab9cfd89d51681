// What the HTTP face reports as it works, for its logs and metrics (each implements the part it needs).
import type { CallEvent } from '../../runtime/session.js';

export type CloseReason = 'closed' | 'expired' | 'shutdown';
export type Refusal = 'session-limit' | 'draining' | 'session-commands' | 'instance-commands';

export interface Observer {
  sessionOpened?(sessionId: string): void;
  sessionClosed?(sessionId: string, reason: CloseReason, ageMs: number): void;
  call?(event: CallEvent): void;
  refused?(refusal: Refusal, sessionId?: string): void;
}

/** Tells every observer; an observer's fault never reaches the request that caused the event. */
export function fanOut(observers: Observer[]): Required<Observer> {
  const each =
    <K extends keyof Observer>(key: K) =>
    (...args: Parameters<Required<Observer>[K]>) => {
      for (const observer of observers) {
        try {
          (observer[key] as ((...a: unknown[]) => void) | undefined)?.(...args);
        } catch {
          // Ignored on purpose: see above.
        }
      }
    };
  return { sessionOpened: each('sessionOpened'), sessionClosed: each('sessionClosed'), call: each('call'), refused: each('refused') };
}
