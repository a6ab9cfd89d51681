// The parser seam: tree-sitter-bash in the native addon lists a script's simple commands as literal words.
import { loadBinding } from '../native/loader.js';
import type { Word } from './wrappers.js';

export interface ParsedCommand {
  /** The command name and arguments after leading assignments; null where a word is not literal. */
  words: Word[];
  /** The simple command's source text. */
  text: string;
}

export interface ParsedScript {
  commands: ParsedCommand[];
  /** Some part of the script did not parse, so commands may be missing. */
  error: boolean;
  /** The functions the script defines; their bodies are among `commands`. */
  functions: string[];
}

export function parseScript(script: string): ParsedScript {
  const parsed = loadBinding().parseCommands(script);
  // napi gives a missing word as null or undefined depending on its path; the checker knows null only.
  for (const command of parsed.commands) {
    for (let i = 0; i < command.words.length; i += 1) command.words[i] ??= null;
  }
  return parsed as ParsedScript;
}
