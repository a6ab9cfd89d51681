// A tool's sub-command found after its global options (tool-table.ts), so `kubectl -n prod delete pod x` is also
// seen as `kubectl delete pod x`; `python -m <module>` runs the module; git has its own rules (git.ts).
import { unresolvedWhy } from '../contract/index.js';
import { getopt, has } from './getopt.js';
import { normalizeGit } from './git.js';
import type { Word } from './parse.js';
import { programRun, runnerRun, TOOL_RUNNERS } from './runners.js';
import { TOOLS, toolName } from './tool-table.js';

export interface ToolView {
  /** The tool's name, then its sub-command and arguments. */
  view: Word[];
  /** Why a null in the view stands for a word the checker cannot see: a rule that compares it then asks with this. */
  note?: string;
}

export interface ToolViews {
  views: ToolView[];
  /** Shell scripts the tool runs (a git `!` alias, configuration that names a command); null: not literal. */
  scripts?: Word[];
  /** Commands it runs (`git bisect run <cmd>`). */
  runs?: Word[][];
  /** Why it may also run something nobody can see (the views still answer to the rules and the default). */
  unresolved?: string;
}

export type ToolResult = ToolViews | { unresolved: string } | { nothing: true };

/** The forms of a tool's invocation to match beside the words as written; undefined when `base` is no tool. */
export function normalizeTool(base: string, words: readonly Word[]): ToolResult | undefined {
  if (base === 'git' || (base.startsWith('git-') && base.length > 4)) return normalizeGit(words);
  const program = programRun(base, words);
  if (program !== undefined) return { views: [], ...program };
  const name = toolName(base);
  if (name === undefined) return undefined;
  const spec = TOOLS[name]!;
  const parsed = getopt(name, spec.options, words, 1);
  if ('unresolved' in parsed) {
    // A word that is not literal may be an option that decides what runs.
    if (parsed.dynamic && spec.opaque) return { unresolved: parsed.unresolved };
    return { views: [{ view: [words[0]!, null], note: parsed.unresolved }] };
  }
  if (spec.stops && has(parsed, ...spec.stops)) return { nothing: true };
  const opaque = parsed.options.find((option) => spec.opaque?.includes(option.key));
  if (opaque) return { unresolved: unresolvedWhy.opaqueOption(name, opaque.key.length > 1 ? `--${opaque.key}` : `-${opaque.key}`) };
  const command = parsed.options.find((option) => spec.commands?.[option.key] !== undefined);
  if (command) return { views: [{ view: [words[0]!, spec.commands![command.key]!] }] };
  const [sub, ...rest] = parsed.operands;
  const tool = words[0]!;
  if (sub === undefined) return { views: [{ view: [tool] }] };
  if (sub === null) return { views: [{ view: [tool, null, ...rest], note: unresolvedWhy.dynamicOption(name) }] };
  const views: ToolView[] = [{ view: [tool, sub, ...rest] }];
  const alias = spec.aliases?.[sub];
  if (alias !== undefined) views.push({ view: [tool, ...alias.split(' '), ...rest] });
  else if (spec.known && !spec.known.has(sub)) views.push({ view: [tool, null, ...rest], note: unresolvedWhy.unknownCommand(name, sub) });
  const runner = TOOL_RUNNERS[name]?.[alias ?? sub];
  return runner ? { views, ...runnerRun(`${name} ${alias ?? sub}`, runner, rest) } : { views };
}

const PYTHON = /^python(\d+(\.\d+)?)?$/;
const PYTHON_WITH_VALUE = new Set(['W', 'X']);

/** `python [options] -m MODULE args` runs MODULE (`python3 -m pip install` is `pip install`); undefined otherwise. */
export function pythonModule(base: string, words: readonly Word[]): Word[] | { unresolved: string } | undefined {
  if (!PYTHON.test(base)) return undefined;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i];
    if (word === null) return { unresolved: unresolvedWhy.dynamicOption(base) };
    if (word === '--check-hash-based-pycs') {
      i += 1;
      continue;
    }
    if (word === '-' || !word.startsWith('-') || word.startsWith('--')) return undefined;
    for (let j = 1; j < word.length; j += 1) {
      const letter = word[j]!;
      if (letter === 'c') return undefined;
      if (letter === 'm') {
        const module = word.length > j + 1 ? word.slice(j + 1) : words[i + 1];
        if (module === undefined) return undefined;
        const next = word.length > j + 1 ? i + 1 : i + 2;
        return [module, ...words.slice(next)];
      }
      if (PYTHON_WITH_VALUE.has(letter)) {
        if (word.length === j + 1) i += 1;
        break;
      }
    }
  }
  return undefined;
}
