// The wrappers the checker strips before matching (`timeout 5 rm …` is checked as `rm …`): each one's options, so
// the command it runs is found exactly, and an option the table does not know makes the command unresolvable.
import { unresolvedWhy } from '../contract/index.js';

/** A word of a simple command: its literal value, or null where bash would expand it. */
export type Word = string | null;

interface WrapperSpec {
  /** Short options without an argument. */
  flags?: string;
  /** Short options whose argument is the rest of the word or the next word. */
  withArgument?: string;
  /** Short options whose argument, if any, is the rest of the word only (`xargs -i{}`). */
  inlineArgument?: string;
  /** Long options (without `--`) and whether each takes an argument (`=value` or the next word). */
  long?: Record<string, boolean>;
  /** Operands before the command (`timeout DURATION`). */
  operands?: number;
  /** `NAME=value` words before the command are the wrapper's (env, sudo). */
  assignments?: boolean;
  /** Digits as an option (`nice -10`). */
  numericOption?: boolean;
  /** Options after which no command follows (`ionice -p PID`, `doas -C FILE`). */
  noCommand?: string;
}

const SPECS: Record<string, WrapperSpec> = {
  timeout: {
    flags: 'v',
    withArgument: 'sk',
    long: { signal: true, 'kill-after': true, 'preserve-status': false, foreground: false, verbose: false },
    operands: 1,
  },
  nice: { withArgument: 'n', long: { adjustment: true }, numericOption: true },
  nohup: {},
  coproc: {},
  env: {
    flags: 'i0v',
    withArgument: 'uC',
    long: { 'ignore-environment': false, null: false, unset: true, chdir: true, debug: false, 'ignore-signal': true, 'default-signal': true, 'block-signal': true },
    assignments: true,
  },
  command: { flags: 'pvV' },
  builtin: {},
  exec: { flags: 'cl', withArgument: 'a' },
  time: { flags: 'pav', withArgument: 'fo', long: { format: true, output: true, append: false, verbose: false, portability: false, quiet: false } },
  stdbuf: { withArgument: 'ioe', long: { input: true, output: true, error: true } },
  ionice: { flags: 'tPu', withArgument: 'cn', long: { class: true, classdata: true, ignore: false }, noCommand: 'pPu' },
  xargs: {
    flags: '0rtpxo',
    withArgument: 'adEILnPs',
    inlineArgument: 'iel',
    long: {
      null: false,
      'no-run-if-empty': false,
      verbose: false,
      interactive: false,
      exit: false,
      'open-tty': false,
      'arg-file': true,
      delimiter: true,
      eof: true,
      replace: true,
      'max-lines': true,
      'max-args': true,
      'max-procs': true,
      'max-chars': true,
      'process-slot-var': true,
    },
  },
  sudo: {
    flags: 'AbEHiKklnPSsVv',
    withArgument: 'ugCDhprtTUR',
    long: {
      user: true,
      group: true,
      'close-from': true,
      chdir: true,
      host: true,
      prompt: true,
      role: true,
      type: true,
      'command-timeout': true,
      'other-user': true,
      chroot: true,
      askpass: false,
      background: false,
      'preserve-env': false,
      'set-home': false,
      login: false,
      'remove-timestamp': false,
      'reset-timestamp': false,
      'non-interactive': false,
      'preserve-groups': false,
      stdin: false,
      shell: false,
    },
    assignments: true,
    noCommand: 'eKklVv',
  },
  doas: { flags: 'nsL', withArgument: 'uC', noCommand: 'CL' },
};

/** The wrappers that run another command with more privileges: the evaluation notes them. */
export const PRIVILEGE_WRAPPERS: ReadonlySet<string> = new Set(['sudo', 'doas']);

export const WRAPPERS: ReadonlySet<string> = new Set(Object.keys(SPECS));

export type Stripped = { rest: Word[]; replace?: string } | { unresolved: string };

/**
 * The command a wrapper runs: its words after the wrapper's own options, assignments and operands; an empty
 * `rest` when it runs none. `replace` is xargs's replace string, whose words are not literal.
 */
export function stripWrapper(name: string, words: readonly Word[]): Stripped {
  const spec = SPECS[name]!;
  let replace: string | undefined;
  let i = 1;
  const unknown = (option: string): Stripped => ({ unresolved: unresolvedWhy.unknownOption(name, option) });
  while (i < words.length) {
    const word = words[i];
    if (word === null) return { unresolved: unresolvedWhy.dynamicOption(name) };
    if (word === '--') {
      i += 1;
      break;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i += 1;
      continue;
    }
    if (word.startsWith('--') && spec.long) {
      const eq = word.indexOf('=');
      const option = word.slice(2, eq < 0 ? undefined : eq);
      if (name === 'env' && option === 'split-string') return { unresolved: unresolvedWhy.splitString };
      const takes = spec.long[option];
      if (takes === undefined) return unknown(`--${option}`);
      if (name === 'xargs' && option === 'replace') replace = eq < 0 ? '{}' : word.slice(eq + 1);
      i += takes && eq < 0 ? 2 : 1;
      continue;
    }
    if (word === '-' && name === 'env') {
      i += 1;
      continue;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (spec.numericOption && /^-\d+$/.test(word)) {
      i += 1;
      continue;
    }
    let next = i + 1;
    for (let j = 1; j < word.length; j += 1) {
      const flag = word[j]!;
      if (name === 'env' && flag === 'S') return { unresolved: unresolvedWhy.splitString };
      if (spec.noCommand?.includes(flag)) return { rest: [] };
      if (spec.flags?.includes(flag)) continue;
      if (spec.inlineArgument?.includes(flag)) {
        if (name === 'xargs' && flag === 'i') replace = word.slice(j + 1) || '{}';
        break;
      }
      if (spec.withArgument?.includes(flag)) {
        const inline = word.slice(j + 1);
        const argument = inline !== '' ? inline : words[i + 1];
        if (inline === '') next = i + 2;
        if (name === 'xargs' && flag === 'I') {
          if (argument === null || argument === undefined) return { unresolved: unresolvedWhy.dynamicOption(name) };
          replace = argument;
        }
        break;
      }
      return unknown(`-${flag}`);
    }
    i = next;
  }
  i += Math.min(spec.operands ?? 0, Math.max(0, words.length - i));
  return replace === undefined ? { rest: words.slice(i) } : { rest: words.slice(i), replace };
}
