// Git's sub-command as git itself finds it: after its global options (git.c's handle_options), through aliases
// given with -c, from a `git-<sub>` executable; configuration that names a program is checked as a script, and a
// name that is not one of git's commands may be an alias a config file defines, so it is not taken at its word.
import { unresolvedWhy } from '../contract/index.js';
import type { Word } from './parse.js';
import { GIT_COMMANDS } from './tool-table.js';
import type { ToolResult, ToolViews } from './tools.js';

/** Global options that take the next word (or `=value`, except -C, -c and --shallow-file). */
const WITH_VALUE: ReadonlySet<string> = new Set(['--git-dir', '--namespace', '--work-tree', '--attr-source', '--config-env', '--super-prefix']);
const NEXT_ONLY: ReadonlySet<string> = new Set(['-C', '-c', '--shallow-file']);
const FLAGS: ReadonlySet<string> = new Set([
  '-p', '--paginate', '-P', '--no-pager', '--no-lazy-fetch', '--no-replace-objects', '--bare', '--literal-pathspecs', '--no-literal-pathspecs',
  '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks', '--no-advice',
]);
/** Options that print something and exit. */
const QUERIES: ReadonlySet<string> = new Set(['--exec-path', '--html-path', '--man-path', '--info-path']);

/** Configuration whose value is a command git (or a program it starts) runs, through a shell. */
const COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|askpass|fsmonitor|alternaterefscommand|gitproxy)|pager\..+|sequence\.editor|diff\.external|diff\..+\.(command|textconv)|merge\..+\.driver|mergetool\..+\.cmd|difftool\..+\.cmd|filter\..+\.(clean|smudge|process)|credential(\..+)?\.helper|gpg(\..+)?\.program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|sendemail\..*(cmd|sendmail.*)|browser\..+\.cmd|man\..+\.cmd|web\.browser|sendemail\.smtpserver|instaweb\.(httpd|browser))$/;
/** Configuration that changes nothing about what runs. */
const HARMLESS_KEYS =
  /^(user\.(name|email|signingkey|usecfg)|author\.(name|email)|committer\.(name|email)|color\..+|advice\..+|init\.defaultbranch|safe\.directory|core\.(quotepath|autocrlf|safecrlf|filemode|ignorecase|precomposeunicode|longpaths|whitespace|abbrev|eol|symlinks|compression|preloadindex|untrackedcache|commentchar|commentstring|logallrefupdates|bare|sharedrepository|checkstat|trustctime|splitindex|multipackindex|packedgitlimit|packedgitwindowsize|bigfilethreshold|deltabasecachelimit|warnambiguousrefs)|commit\.(gpgsign|verbose|cleanup|status)|tag\.(gpgsign|sort)|pull\.(rebase|ff|octopus|twohead)|push\.(default|autosetupremote|followtags|gpgsign|usebitmaps)|merge\.(ff|conflictstyle|log|stat|renames|renamelimit|verbosity|autostash)|rebase\.(autostash|autosquash|stat|updaterefs|abbreviatecommands|missingcommitscheck)|fetch\.(prune|prunetags|parallel|recursesubmodules|writecommitgraph|fsckobjects|negotiationalgorithm|showforcedupdates|all)|log\..+|format\.(pretty|signoff|numbered|coverletter|thread|subjectprefix)|diff\.(renames|algorithm|noprefix|mnemonicprefix|relative|indentheuristic|colormoved|context|interhunkcontext|statgraphwidth|submodule|ignoresubmodules|suppressblankempty|wserrorhighlight|dirstat|orderfile|renamelimit)|i18n\..+|column\..+|status\..+|branch\.(autosetupmerge|autosetuprebase|sort)|protocol\.(version|file\.allow)|http\.(sslverify|version|postbuffer|lowspeedlimit|lowspeedtime|sslcainfo|extraheader|proxy|maxrequests)|gc\..+|maintenance\.auto|feature\..+|index\..+|pack\..+|transfer\..+|receive\.(fsckobjects|denycurrentbranch|denynonfastforwards|denydeletes)|submodule\.(recurse|fetchjobs|.+\.(url|update|branch|active))|clone\.(defaultremotename|rejectshallow)|blame\..+|grep\..+|rerere\..+|am\..+|apply\.whitespace|checkout\..+|worktree\..+|sparse\..+|url\..+\.(insteadof|pushinsteadof)|remote\..+\.(url|pushurl|fetch|push|tagopt|prune|mirror)|credential\.(usehttppath|username|interactive))$/;

/** Sub-command options whose value is a command git runs through a shell. */
const SCRIPT_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rebase: ['-x', '--exec'],
  fetch: ['--upload-pack'],
  pull: ['--upload-pack'],
  clone: ['-u', '--upload-pack'],
  'ls-remote': ['--upload-pack'],
  push: ['--receive-pack', '--exec'],
  archive: ['--exec'],
  difftool: ['-x', '--extcmd'],
  'filter-branch': ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'],
  'send-email': ['--to-cmd', '--cc-cmd', '--header-cmd', '--sendmail-cmd', '--smtp-server'],
};

const MAX_ALIASES = 16;

/** `key` as git compares it: section and variable name case-insensitive, a subsection as written. */
function normalKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

interface Config {
  aliases: Map<string, Word>;
  scripts: Word[];
}

/** What one configuration pair given on the command line means; a reason to ask when it is not understood. */
function configure(config: Config, key: string, value: Word): string | undefined {
  const normal = normalKey(key);
  if (normal.startsWith('alias.')) config.aliases.set(normal.slice('alias.'.length).toLowerCase(), value);
  else if (COMMAND_KEYS.test(normal)) config.scripts.push(value);
  else if (!HARMLESS_KEYS.test(normal)) return unresolvedWhy.gitConfig(key);
  return undefined;
}

/** The words of a non-shell alias, as git splits them; null when quotes or escapes make that uncertain. */
function aliasWords(value: string): string[] | null {
  if (/["'\\]/.test(value)) return null;
  return value.split(/\s+/).filter(Boolean);
}

/** `git …` or `git-<sub> …` as git runs it. */
export function normalizeGit(words: readonly Word[], depth = 0): ToolResult {
  const name = words[0]!;
  const base = name.slice(name.lastIndexOf('/') + 1);
  if (base.startsWith('git-')) return subcommand(['git', base.slice(4), ...words.slice(1)], 1, { aliases: new Map(), scripts: [] }, depth);
  const config: Config = { aliases: new Map(), scripts: [] };
  let i = 1;
  for (; i < words.length; i += 1) {
    const word = words[i];
    // Not literal: it may be `-c` with configuration that runs a program.
    if (word === null) return { views: [{ view: ['git', null], note: unresolvedWhy.dynamicOption('git') }], unresolved: unresolvedWhy.dynamicOption('git') };
    if (!word.startsWith('-')) break;
    if (word === '--help' || word === '-h' || word === '--version' || word === '-v') break;
    if (FLAGS.has(word) || word.startsWith('--exec-path=')) continue;
    if (QUERIES.has(word) || word.startsWith('--list-cmds=')) return { nothing: true };
    const eq = word.indexOf('=');
    const option = eq < 0 ? word : word.slice(0, eq);
    if (!WITH_VALUE.has(option) && !(NEXT_ONLY.has(word) && eq < 0)) return { views: [{ view: ['git', null], note: unresolvedWhy.unknownOption('git', option) }] };
    const value = eq < 0 ? words[++i] : word.slice(eq + 1);
    if (value === undefined) return { nothing: true };
    if (option === '-c' || option === '--config-env') {
      if (value === null) return { unresolved: unresolvedWhy.dynamicOption('git') };
      const sep = value.indexOf('=');
      const why = configure(config, sep < 0 ? value : value.slice(0, sep), option === '-c' && sep >= 0 ? value.slice(sep + 1) : null);
      if (why) return { unresolved: why };
    }
  }
  const rest = words.slice(i);
  if (rest[0] === '--help' || rest[0] === '-h') rest[0] = 'help';
  if (rest[0] === '--version' || rest[0] === '-v') rest[0] = 'version';
  return subcommand(['git', ...rest], 1, config, depth);
}

function subcommand(words: Word[], at: number, config: Config, depth: number): ToolResult {
  const sub = words[at];
  const scripts = [...config.scripts];
  if (sub === undefined) return { views: [{ view: words }], scripts };
  if (sub === null) return { views: [{ view: words, note: unresolvedWhy.dynamicOption('git') }], scripts };
  const alias = GIT_COMMANDS.has(sub) ? undefined : config.aliases.get(sub.toLowerCase());
  if (alias !== undefined) {
    if (alias === null || depth >= MAX_ALIASES) return { unresolved: unresolvedWhy.dynamicGitAlias(sub) };
    // A `!` alias is a shell command; git appends the alias's arguments to it.
    if (alias.startsWith('!')) return { views: [], scripts: [...scripts, alias.slice(1)] };
    const expansion = aliasWords(alias);
    if (expansion === null) return { unresolved: unresolvedWhy.dynamicGitAlias(sub) };
    const expanded = normalizeGit(['git', ...expansion, ...words.slice(at + 1)], depth + 1);
    if (!('views' in expanded)) return expanded;
    return { ...expanded, scripts: [...scripts, ...(expanded.scripts ?? [])] };
  }
  if (!GIT_COMMANDS.has(sub)) {
    // Not a command of git: an alias or help.autocorrect from a config file decides what it runs.
    return { views: [{ view: ['git', null, ...words.slice(at + 1)], note: unresolvedWhy.unknownCommand('git', sub) }], scripts };
  }
  return { views: [{ view: words }], ...subcommandRuns(sub, words.slice(at + 1), scripts) };
}

/** What a sub-command itself runs: options that name a shell command, `bisect run`, `submodule foreach`, `config` values. */
function subcommandRuns(sub: string, args: Word[], scripts: Word[]): Omit<ToolViews, 'views'> {
  const runs: Word[][] = [];
  const options = SCRIPT_OPTIONS[sub] ?? [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--') break;
    if (arg === null) continue;
    for (const option of options) {
      if (arg === option) scripts.push(args[i + 1] ?? null);
      else if (option.startsWith('--') && arg.startsWith(`${option}=`)) scripts.push(arg.slice(option.length + 1));
      else if (!option.startsWith('--') && arg.startsWith(option) && arg.length > option.length && !arg.startsWith('--')) scripts.push(arg.slice(option.length));
    }
  }
  if (sub === 'bisect' && args[0] === 'run' && args.length > 1) runs.push(args.slice(1));
  if (sub === 'submodule') {
    const at = args.indexOf('foreach');
    if (at >= 0) {
      let j = at + 1;
      while (args[j] === '--recursive' || args[j] === '-q' || args[j] === '--quiet') j += 1;
      const command = args.slice(j);
      if (command.length > 0) scripts.push(command.includes(null) ? null : command.join(' '));
    }
  }
  if (sub === 'config') configValue(args, scripts);
  return runs.length > 0 ? { scripts, runs } : { scripts };
}

/** `git config [set] [options] KEY VALUE`: a value that git will later run is checked as if it ran now. */
function configValue(args: Word[], scripts: Word[]): void {
  const withValue = new Set(['-f', '--file', '--blob', '-t', '--type', '--default', '--comment', '--value']);
  let i = 0;
  if (args[0] === 'set') i = 1;
  while (i < args.length && args[i]?.startsWith('-')) i += withValue.has(args[i]!) ? 2 : 1;
  const key = args[i];
  const value = args[i + 1];
  if (key === null || key === undefined || value === undefined) return;
  const normal = normalKey(key);
  if (normal.startsWith('alias.')) {
    if (value === null || value.startsWith('!')) scripts.push(value === null ? null : value.slice(1));
  } else if (COMMAND_KEYS.test(normal)) scripts.push(value);
}
