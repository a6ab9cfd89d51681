// The parser seam: what the native parse hands over as one JSON text reads back exactly, whatever bytes a word,
// a here-document or a command's text holds.
import { describe, expect, it } from 'vitest';
import { parseScript } from '../../src/policy/parse.js';

describe('parseScript', () => {
  it('reads back every byte of words, texts and here-documents', () => {
    const parsed = parseScript(
      `printf '"\\\\ "' "a\\"b" $'\\x01\\x1f\\t' 'é ✓ 😀' $'tab\\tnew\\nline'; cat <<'E'\nq"uo\\te\\\\d\nE\nX="v\\"" ls`,
    );
    expect(parsed.error).toBe(false);
    expect(parsed.commands.map((command) => command.words)).toEqual([
      ['printf', '"\\\\ "', 'a"b', '\x01\x1f\t', 'é ✓ 😀', 'tab\tnew\nline'],
      ['cat'],
      ['ls'],
    ]);
    expect(parsed.commands[0]!.text).toBe(`printf '"\\\\ "' "a\\"b" $'\\x01\\x1f\\t' 'é ✓ 😀' $'tab\\tnew\\nline'`);
    expect(parsed.commands[1]!.stdin).toEqual({ kind: 'text', value: 'q"uo\\te\\\\d\n' });
    expect(parsed.commands[0]!.stdin).toBeUndefined();
    expect(parsed.assigned).toEqual([{ name: 'X', value: 'v"' }]);
  });

  it('gives a word that is not literal, a dynamic name and an unknown input as null', () => {
    const parsed = parseScript('$CMD "$x" < "$f"; local "$n"=1');
    expect(parsed.commands[0]!.words).toEqual([null, null]);
    expect(parsed.commands[0]!.stdin).toEqual({ kind: 'other', value: null });
    expect(parsed.assigned).toEqual([{ name: null, value: null }]);
  });
});
