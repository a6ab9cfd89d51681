// The console's changes, one POST route each: acknowledging live output, stopping a job, answering an approval and
// changing a session's mode. The handler lets none of them run before the door has checked a browser's CSRF value.
import type { ServerResponse } from 'node:http';
import type { Runtime } from '../../runtime/runtime.js';
import { isSandboxMode } from '../../sandbox/modes.js';
import type { ApprovalDecision, ConsoleApprovals } from './approvals.js';
import type { Caller } from './door.js';
import { json, text } from './replies.js';
import type { ConsoleStream } from './stream.js';

export interface ActionContext {
  runtime: Runtime;
  approvals: ConsoleApprovals | undefined;
  /** The open event streams, by id. */
  streams: Map<string, ConsoleStream>;
}

type Run = (context: ActionContext, id: string, body: Record<string, unknown>, who: Caller, res: ServerResponse) => void;

export interface ConsoleAction {
  /** The route, its one capture (an id) decoded for `run`. */
  pattern: RegExp;
  /** A path of this route (tests send to every route). */
  example: string;
  run: Run;
}

/** Changing a session's mode and answering approvals are a person's decisions, never a program's with the token. */
/** The most a person types in one go (a paste included). */
const MAX_TYPED = 4096;

const PERSON_ONLY = 'Forbidden: only a person signed in to the console (a browser with its sign-in cookie) can do this; the bearer token cannot';

export const CONSOLE_ACTIONS: readonly ConsoleAction[] = [
  {
    pattern: /^\/api\/stream\/ack$/,
    example: '/api/stream/ack',
    run: ({ streams }, _id, body, _who, res) => {
      const stream = typeof body.stream === 'string' ? streams.get(body.stream) : undefined;
      if (!stream) return text(res, 404, 'no such stream');
      stream.ack(Number(body.seq));
      return json(res, 200, {});
    },
  },
  {
    pattern: /^\/api\/jobs\/([^/]+)\/stop$/,
    example: '/api/jobs/bash-1/stop',
    run: ({ runtime }, id, body, _who, res) => {
      if (!runtime.jobs) return text(res, 404, 'this runtime has no jobs');
      const reason = typeof body.reason === 'string' && body.reason.trim() ? body.reason.trim().slice(0, 500) : undefined;
      try {
        return json(res, 200, { stopping: runtime.jobs.kill(id, reason) });
      } catch (error) {
        return text(res, 404, (error as Error).message);
      }
    },
  },
  {
    // A person types into a terminal job; the model's next read shows what the program made of it.
    pattern: /^\/api\/jobs\/([^/]+)\/input$/,
    example: '/api/jobs/bash-1/input',
    run: ({ runtime }, id, body, who, res) => {
      if (who.kind !== 'browser') return text(res, 403, PERSON_ONLY);
      if (!runtime.jobs) return text(res, 404, 'this runtime has no jobs');
      if (typeof body.text !== 'string' || body.text.length === 0 || body.text.length > MAX_TYPED) {
        return text(res, 400, `text must be a string of 1 to ${MAX_TYPED} characters`);
      }
      return runtime.jobs.input(id, Buffer.from(body.text)) ? json(res, 200, { typed: body.text.length }) : text(res, 409, `job ${id} has no running terminal`);
    },
  },
  {
    pattern: /^\/api\/jobs\/([^/]+)\/screen$/,
    example: '/api/jobs/bash-1/screen',
    run: ({ runtime }, id, _body, _who, res) => {
      if (!runtime.jobs) return text(res, 404, 'this runtime has no jobs');
      void runtime.jobs.screen(id).then((screen) => (screen ? json(res, 200, screen) : text(res, 409, `job ${id} has no running terminal`)));
    },
  },
  {
    pattern: /^\/api\/approvals\/([^/]+)$/,
    example: '/api/approvals/approval-1',
    run: ({ approvals }, id, body, who, res) => {
      if (who.kind !== 'browser') return text(res, 403, PERSON_ONLY);
      if (!approvals) return text(res, 404, 'this console is not an approval channel');
      const decision = body.decision;
      if (decision !== 'allow-once' && decision !== 'allow-always' && decision !== 'reject') {
        return text(res, 400, 'decision must be "allow-once", "allow-always" or "reject"');
      }
      const decided = approvals.decide(id, decision as ApprovalDecision);
      return decided ? json(res, 200, { decided }) : text(res, 409, 'this request is no longer pending');
    },
  },
  {
    pattern: /^\/api\/sessions\/([^/]+)\/mode$/,
    example: '/api/sessions/session-1/mode',
    run: ({ runtime, streams }, id, body, who, res) => {
      if (who.kind !== 'browser') return text(res, 403, PERSON_ONLY);
      const session = runtime.sessions().find((open) => open.id === id);
      if (!session) return text(res, 404, `no open session ${id}`);
      if (typeof body.mode !== 'string' || !isSandboxMode(body.mode)) return text(res, 400, 'mode must be a sandbox mode');
      try {
        session.setSandboxMode(body.mode);
      } catch (error) {
        return text(res, 409, (error as Error).message);
      }
      for (const stream of streams.values()) stream.refresh();
      return json(res, 200, { mode: body.mode });
    },
  },
];

/** Runs the action `path` names, or answers 404. */
export function act(context: ActionContext, path: string, body: Record<string, unknown>, who: Caller, res: ServerResponse): void {
  for (const action of CONSOLE_ACTIONS) {
    const match = action.pattern.exec(path);
    if (match) return action.run(context, decodeURIComponent(match[1] ?? ''), body, who, res);
  }
  return text(res, 404, `Not found: ${path}`);
}
