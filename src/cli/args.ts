// Command-line parsing on node:util parseArgs, with the CLI's own messages for every kind of usage error.
import { statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { ShellringError } from '../errors.js';
import { workspaceRootProblem } from '../sandbox/sandbox.js';

/** A mistake in how the command was invoked: reported on stderr with exit status 2. */
export function usageError(message: string, cause?: unknown): ShellringError {
  return new ShellringError('SHELLRING_USAGE', message, { cause });
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** May be given more than once: the values are kept in order, joined by NUL (no argument can hold one). */
  multiple?: boolean;
  /**
   * The configuration paths the option sets (`executor.maxOutputBytes`, `serve.port`): docs/configuration.md names
   * the option on their rows, and a test holds each declaration to what the option does.
   */
  sets?: readonly string[];
}

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Parses leniently and then judges each token, because strict parseArgs reports unknown options and missing
 * values in messages written for programmers (and takes `--cwd --timeout` as a directory named "--timeout").
 */
export function parseCommand(
  argv: string[],
  options: Record<string, OptionSpec>,
  { positionals = false } = {},
): Parsed {
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const values: Parsed['values'] = {};
  const rest: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      if (!positionals) throw usageError(`unexpected argument '${token.value}'`);
      rest.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (!spec) throw usageError(`unknown option '${token.rawName}'`);
    if (spec.type === 'boolean') {
      if (token.inlineValue) throw usageError(`option '${token.rawName}' takes no value`);
      values[token.name] = true;
      continue;
    }
    // A following flag is a forgotten value, not a value; `--opt=-x` still passes one that starts with a dash.
    if (token.value === undefined || token.value === '' || (!token.inlineValue && token.value.startsWith('-'))) {
      throw usageError(`option '${token.rawName}' needs a value`);
    }
    const earlier = values[token.name];
    if (earlier !== undefined && !spec.multiple) throw usageError(`option '${token.rawName}' was given twice`);
    values[token.name] = earlier === undefined ? token.value : `${earlier}\0${token.value}`;
  }
  return { values, positionals: rest };
}

export function integerOption(
  flag: string,
  raw: string | boolean | undefined,
  { min, max, unit }: { min: number; max: number; unit: string },
): number | undefined {
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw usageError(`invalid ${flag}: expected ${unit} from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

/** A flag whose value is one of `choices`: a typo names the flag and the choices, before any option is composed. */
export function choiceOption<T extends string>(flag: string, raw: string | boolean | undefined, choices: readonly T[]): T | undefined {
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  const listed = choices.map((choice) => `"${choice}"`);
  const expected = listed.length === 2 ? listed.join(' or ') : `${listed.slice(0, -1).join(', ')} or ${listed.at(-1)}`;
  throw usageError(`invalid ${flag}: expected ${expected}, got '${raw}'`);
}

/** The directory must exist now: a typo should fail here, not as a spawn error on the first command. */
export function directoryOption(raw: string | boolean | undefined): string | undefined {
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  const dir = resolve(raw);
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // Reported below with the same message as a file that is not a directory.
  }
  if (!isDirectory) throw usageError(`invalid --cwd: '${raw}' is not a directory`);
  return dir;
}

/**
 * A sandboxed server's working directory, refused at start where no call could work: `/` (where some MCP clients
 * launch servers) under any confining mode, the home directory under workspace-write. Otherwise every call
 * would fail, one by one, with the sandbox's refusal.
 */
export function sandboxedCwd(mode: string | undefined, cwd: string | undefined): string {
  const dir = cwd ?? process.cwd();
  if (mode !== 'read-only' && mode !== 'workspace-write') return dir;
  const problem = workspaceRootProblem(dir);
  if (problem && (mode === 'workspace-write' || resolve(dir) === sep)) {
    throw usageError(
      `the working directory ${dir} cannot be a ${mode} sandbox's workspace (${problem}); pass --cwd <project directory>` +
        (cwd === undefined ? ' (some MCP clients start servers in /)' : ''),
    );
  }
  return dir;
}
