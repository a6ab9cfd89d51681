// How a caller's value appears inside an error line: JSON, cut to a readable length, never a throw.

/** Characters of a value an error line shows before it is cut. */
const SHOWN_CHARS = 80;

/** Control characters (C0, DEL, C1) and the JSON line separators: an id holding one is quoted, not shown raw. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The first SHOWN_CHARS characters (never half a surrogate pair), and how many there were in all when more. */
function head(text: string): { head: string; total?: number } {
  if (text.length <= SHOWN_CHARS) return { head: text };
  const chars = Array.from(text.slice(0, SHOWN_CHARS * 2)).slice(0, SHOWN_CHARS);
  let total = 0;
  for (const _ of text) total += 1;
  return total <= SHOWN_CHARS ? { head: text } : { head: chars.join(''), total };
}

function quoted(text: string): string {
  const cut = head(text);
  return cut.total === undefined ? JSON.stringify(text) : `${JSON.stringify(cut.head)}… (${cut.total} characters)`;
}

/** A value as JSON, cut; a value JSON cannot hold (a bigint, a cycle, a function) is named by its type. */
export function shownJson(value: unknown): string {
  if (typeof value === 'string') return quoted(value);
  // JSON would say null: name the number as JavaScript does, so the error says what was wrong with it.
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return typeof value === 'bigint' ? `${value}n` : `(${typeof value})`;
  const cut = head(text);
  return cut.total === undefined ? text : `${cut.head}…`;
}

/** An id or name as given: as-is when short and printable, else quoted and cut. */
export function shownId(id: string): string {
  return id.length <= SHOWN_CHARS && !UNPRINTABLE.test(id) ? id : quoted(id);
}

/** What kind of value a caller passed where an object belongs. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'undefined') return type;
  return type === 'object' ? 'an object' : `a ${type}`;
}
