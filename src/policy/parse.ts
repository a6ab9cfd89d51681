// The parser seam: the native addon lists a script's simple commands as literal words, with each command's
// standard input where its own redirection sets it, and the variables the script sets.
import { loadBinding } from '../native/loader.js';

/** A word of a simple command: its literal value, or null where bash would expand it. */
export type Word = string | null;

/** A command's standard input: a literal here-document or here-string, a literal file, or anything else. */
export interface Stdin {
  kind: 'text' | 'file' | 'other';
  value?: string | null;
}

export interface ParsedCommand {
  /** The command name and arguments after leading assignments; null where a word is not literal. */
  words: Word[];
  /** The simple command's source text. */
  text: string;
  /** Set when one of its own redirections gives descriptor 0. */
  stdin?: Stdin | null;
}

export interface Assignment {
  /** Null when the name is not literal. */
  name: string | null;
  /** The literal value; null when it is expanded, appended to, or not given. */
  value: string | null;
}

export interface ParsedScript {
  commands: ParsedCommand[];
  /** Some part of the script did not parse, so commands may be missing. */
  error: boolean;
  /** The functions the script defines; their bodies are among `commands`. */
  functions: string[];
  /** Every variable the script sets: assignments, `export`/`declare`/`local`/`readonly`/`typeset`, `for`. */
  assigned: Assignment[];
}

export function parseScript(script: string): ParsedScript {
  return JSON.parse(loadBinding().parseCommands(script)) as ParsedScript;
}
