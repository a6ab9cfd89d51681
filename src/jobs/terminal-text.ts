// A terminal's byte stream as text a model can read: escape sequences dropped, carriage-return and backspace
// overdraws collapsed to what the line finally shows, other control characters dropped.

/** Control sequences: CSI (with its parameters), OSC, DCS, SOS, PM and APC strings (ended by BEL or ST), charset
 * designations and the other two-byte escapes; a sequence cut off at the end is dropped too. */
const ESCAPES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]|\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b]*|[ -/]*)?$|\x9b[0-?]*[ -/]*[@-~]/g;

export function collapseTerminal(text: string): string {
  const lines = text.replace(ESCAPES, '').split('\n');
  return lines.map(overdraw).join('\n');
}

/** One line as it ends up shown: `\r` returns to its start, backspace moves one back, later characters overwrite. */
function overdraw(line: string): string {
  if (!/[\x00-\x08\x0b-\x1f\x7f]/.test(line)) return line;
  const cells: string[] = [];
  let at = 0;
  for (const char of line) {
    if (char === '\r') at = 0;
    else if (char === '\b') at = Math.max(0, at - 1);
    else if (char === '\t') {
      const next = (Math.floor(at / 8) + 1) * 8;
      while (at < next) cells[at++] ??= ' ';
    } else if (char < ' ' || char === '\x7f') continue;
    else cells[at++] = char;
  }
  // A `\r` at the very end (before the newline) leaves the whole line shown.
  return cells.join('');
}
