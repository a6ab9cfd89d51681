// The command policy's words: the one line a refused call returns, the default reasons, the approval prompt and
// the prompt lines that name what the policy refuses.
import { sentence } from './bash-texts.js';

/** How a rule is shown: its words, alternatives joined with `|` (`git push --force|-f`). */
export const ruleLabel = (command: readonly (readonly string[])[]) => command.map((alternatives) => alternatives.join('|')).join(' ');

/** What a sub-command's verdict says when its rule gives no message of its own. */
export const policyReasons = {
  deny: "not allowed by this deployment's command policy",
  ask: "this deployment's command policy asks a person first",
  defaultDeny: "no rule of this deployment's command policy allows it",
  defaultAsk: 'no rule allows it, so a person is asked first',
  unresolved: (why: string) => `cannot be checked before it runs (${why})`,
  maybe: (label: string) => `cannot be checked before it runs (a word that decides whether "${label}" applies is not literal)`,
};

/** Why a sub-command could not be resolved statically; each is put in `policyReasons.unresolved`. */
export const unresolvedWhy = {
  parseError: 'the script does not parse',
  dynamicName: 'its command name is not a literal word',
  dynamicScript: (shell: string) => `the script given to ${shell} is not literal`,
  dynamicOption: (wrapper: string) => `an option of ${wrapper} is not literal`,
  dynamicGitAlias: (alias: string) => `the script given to git alias ${alias} is not literal`,
  unknownOption: (wrapper: string, option: string) => `${wrapper} option ${option} is not one the checker knows`,
  splitString: 'env -S splits a string into a command the checker cannot see',
  tooDeep: (depth: number) => `nested more than ${depth} levels of bash -c or eval deep`,
  aliases: 'it turns on alias expansion, so later words may not run what they say',
  opaqueRunner: (program: string) => `${program} runs a command in a way the checker does not follow`,
  opaqueOption: (program: string, option: string) => `${program} option ${option} names a program or configuration that decides what runs`,
  inputWords: (program: string) => `${program} adds words it reads from its input`,
  foreignShell: (shell: string) => `${shell} scripts are not bash, so the checker cannot read them`,
  stdinScript: (shell: string) => `${shell} reads its script from its standard input`,
  deviceScript: (shell: string) => `${shell} reads its script from a device or a /proc file`,
  dynamicVariable: 'it sets a variable whose name is not literal',
  startupVariable: (name: string) => `it sets ${name}, which makes programs run code the command line does not show`,
  gitConfig: (key: string) => `git -c ${key} may run a program the checker cannot see`,
  unknownCommand: (tool: string, sub: string) => `"${sub}" is not a ${tool} command, so an alias from its configuration may decide what runs`,
  aliasUse: (name: string) => `${name} is an alias the script defines, and sh, bash in POSIX mode and interactive shells expand aliases`,
  dynamicAlias: 'it defines an alias whose words are not literal',
  rebind: (builtin: string, option: string) => `${builtin} ${option} makes a command name run other code`,
  coprocCompound: 'coproc runs a compound command the checker does not parse',
  subscript: 'a literal word holds an array subscript with a command substitution, which bash runs when it reads the word as a variable or a number',
};

/** The one line a call refused by the policy returns; nothing ran. */
export const policyTexts = {
  denied: (subcommand: string, message: string) => `[policy: denied — ${subcommand}: ${message}]`,
  rejected: (subcommand: string, message: string) => `[policy: rejected by the user — ${subcommand}: ${message}]`,
  cancelled: (subcommand: string, message: string) => `[policy: approval cancelled — ${subcommand}: ${message}]`,
  /** The approval policy is `never`: refused without asking anyone (no person rejected it). */
  neverAsked: (subcommand: string, message: string) =>
    `[policy: denied, this deployment's approval policy is "never", so nobody is asked — ${subcommand}: ${message}]`,
  noChannel: (subcommand: string, message: string) =>
    `[policy: denied, a person must approve it but no approval channel is available — ${subcommand}: ${message}]`,
};

/** The reason a command approval request carries (beside `escalate sandbox to <mode>: …` for escalations). */
export const commandApprovalReason = (subcommand: string, message: string) => `run ${subcommand}: ${message}`;

/** What a person reads when the policy asks about a command. */
export function commandApprovalPrompt(request: {
  toolName: string;
  command: string;
  subcommand: string;
  ruleLabel?: string;
  message: string;
  cwd: string;
  always: boolean;
}): string {
  return [
    sentence(`The ${request.toolName} tool asks to run ${request.subcommand}: ${request.message}`),
    `Command: ${request.command}`,
    `Working directory: ${request.cwd}`,
    request.ruleLabel !== undefined ? `Rule: ${request.ruleLabel}` : 'Rule: (none: the checker cannot resolve it)',
    request.always ? 'Allow it once, or always for this session?' : 'Allow it once?',
  ].join('\n');
}

/** Quotes a rule for the prompt section: each alternative spelled out. */
const shownRule = (command: readonly (readonly string[])[]) => `\`${ruleLabel(command)}\``;

/** The lines the `tool:bash` prompt section gains under a policy, naming what it refuses and what it asks about. */
export function policyPrompt(policy: {
  defaultDecision: 'allow' | 'ask' | 'deny';
  rules: readonly { decision: 'allow' | 'ask' | 'deny'; command: readonly (readonly string[])[]; message?: string }[];
}): string | undefined {
  const listed = (decision: 'allow' | 'ask' | 'deny') =>
    policy.rules
      .filter((rule) => rule.decision === decision)
      .map((rule) => (rule.message ? `${shownRule(rule.command)} (${rule.message})` : shownRule(rule.command)));
  const lines: string[] = [];
  const denied = listed('deny');
  const asked = listed('ask');
  if (denied.length > 0 || policy.defaultDecision === 'deny') {
    lines.push('A command policy applies: a refused command runs nothing and returns `[policy: denied — <command>: <reason>]`; do not try to get around it.');
  } else if (asked.length > 0 || policy.defaultDecision === 'ask') {
    lines.push('A command policy applies: some commands need a person\'s approval before they run.');
  } else {
    return undefined;
  }
  if (denied.length > 0) lines.push(`Refused: ${denied.join('; ')}.`);
  if (asked.length > 0) lines.push(`A person is asked first: ${asked.join('; ')}.`);
  if (policy.defaultDecision !== 'allow') {
    const allowed = listed('allow');
    const rest = policy.defaultDecision === 'deny' ? 'are refused' : 'need a person\'s approval';
    lines.push(`Commands no rule allows ${rest}${allowed.length > 0 ? `; allowed: ${allowed.join('; ')}` : ''}.`);
  }
  return lines.join('\n');
}

/** Errors of loading a policy: each names the rule by its configuration path and its words. */
export const policyLoadErrors = {
  example: (where: string, path: string, label: string, example: string, expected: 'match' | 'notMatch') =>
    `invalid ${where}: ${path} (${label}): example ${JSON.stringify(example)} ${expected === 'match' ? 'does not match the rule' : 'matches the rule, but is listed under notMatch'}`,
};
