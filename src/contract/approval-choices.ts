// What each decision of an approval form does, as the person asked reads it beside the choices, and the network
// request's own prompt.
import { hostPort } from './markers.js';

export const approvalChoices = {
  /** The title of the form's one field. */
  title: 'Decision',
  escalation: 'allow-once runs this one command with the wider sandbox; reject refuses it.',
  command: 'allow-once runs this command; reject refuses it.',
  /** `prefix`: the command prefix allow-always allows for the rest of the session. */
  commandAlways: (prefix: readonly string[]) =>
    `allow-once runs this command; allow-always also allows "${prefix.join(' ')}" for the rest of this session; reject refuses it.`,
};

/** A network request's choices: allow-always names the host and port it lets through. */
export const networkChoices = (host: string, port: number) =>
  `allow-once lets the connections waiting on this request through; allow-always lets ${hostPort(host, port)} through for the rest of this session; reject refuses them.`;

/** The reason a network approval request carries (beside `run <sub-command>: …` and `escalate sandbox to …`). */
export const networkApprovalReason = (host: string, port: number) => `connect to ${hostPort(host, port)}`;

/** What a person reads when a session's command connects to a host its network policy does not list. */
export function networkApprovalPrompt(request: { sessionId: string; host: string; port: number }): string {
  return [
    `A command in session ${request.sessionId} connects to ${hostPort(request.host, request.port)}, which its network policy neither allows nor denies.`,
    'The connection waits for your decision (10 minutes at most).',
    'Allow it once, or always for this session?',
  ].join('\n');
}
