// A session's label from the client's self-description (initialize's clientInfo, or 2026-07-28's per-request copy).
import type { Session } from '../../runtime/session.js';
import { MAX_SESSION_LABEL_CHARS } from '../../contract/index.js';

/** Control characters (C0, DEL, C1): a label is one line of a person's view. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Names `session` after its client: the title it gave, else its name. What a client sends is anyone's text, so it is
 * cleaned to fit a label rather than refused; a client that names itself nothing leaves the label as it was.
 */
export function labelFromClient(session: Session, info: unknown): void {
  const { name, title } = (info && typeof info === 'object' ? info : {}) as { name?: unknown; title?: unknown };
  const chosen = [title, name].find((value): value is string => typeof value === 'string' && value.replace(CONTROL, '').trim() !== '');
  if (chosen === undefined) return;
  const label = [...chosen.replace(CONTROL, ' ').trim()].slice(0, MAX_SESSION_LABEL_CHARS).join('');
  if (label !== session.label) session.setLabel(label);
}
