// Structured JSON logs of the HTTP face (pino): sessions and tool calls; never output or environment values, and
// command text only when asked for.
import type { Logger } from 'pino';
import type { BackoffEvent } from './auth-backoff.js';
import type { Observer } from './observer.js';
import { outcomeOf } from './outcome.js';

export interface LogOptions {
  /** Add each bash call's command text to its start line. Default false: commands can carry secrets. */
  logCommands?: boolean;
}

export function logObserver(logger: Logger, { logCommands = false }: LogOptions = {}): Observer {
  return {
    sessionOpened: (session) => logger.info({ event: 'session.opened', session }, 'session opened'),
    sessionClosed: (session, reason, ageMs) =>
      logger.info({ event: `session.${reason}`, session, ageMs }, reason === 'expired' ? 'session expired (idle)' : `session ${reason}`),
    refused: (refusal, session) => logger.warn({ event: 'refused', refusal, session }, `refused: ${refusal}`),
    call: (event) => {
      const base = { session: event.sessionId, call: event.callId, tool: event.tool };
      if (event.type === 'started') {
        const command = logCommands && event.tool === 'bash' ? commandOf(event.args) : undefined;
        logger.info({ event: 'call.started', ...base, ...(command !== undefined ? { command } : {}) }, 'tool call started');
      } else {
        const { outcome, exitCode } = outcomeOf(event.result);
        logger.info(
          { event: 'call.ended', ...base, durationMs: event.durationMs, outcome, ...(exitCode !== undefined ? { exitCode } : {}) },
          'tool call ended',
        );
      }
    },
  };
}

function commandOf(args: unknown): string | undefined {
  const command = (args as { command?: unknown } | null)?.command;
  return typeof command === 'string' ? command : undefined;
}

/** The line an address's block writes: one per block, however many requests it then refuses. */
export function logBackoff(logger: Logger): (event: BackoffEvent) => void {
  return (event) => logger.warn({ event: 'auth.backoff', ...event }, 'wrong credentials: backing off');
}
