// check(command, context): every simple command a script can run, judged against every layer's rules; the
// strictest decision wins, and whatever cannot be resolved statically asks.
import { policyReasons } from '../contract/index.js';
import type { Decision } from './config.js';
import { resolveScript, type Invocation } from './resolve.js';
import { candidates, prefixMatch, ruleMessage, type CompiledPolicy, type RuleRef } from './rules.js';
import type { Word } from './parse.js';

export interface PolicyMatch {
  /** The rule that decided this sub-command; null for the default decision or what cannot be resolved. */
  rule: RuleRef | null;
  /** The sub-command as the verdict names it: the words the rule matched, else the command's name or text. */
  subcommand: string;
  decision: Decision;
  /** The rule's message, or the contract's reason. */
  message: string;
  /** The argv prefix an "allow always for this session" approval would add; absent where none can be. */
  prefix?: string[];
  /** `sudo` or `doas` it passes through. */
  privileged?: string[];
}

export interface Evaluation {
  decision: Decision;
  matches: PolicyMatch[];
  /** `<sub-command>: <message>` of the match that decided, or `allowed`. */
  reason: string;
}

export interface CheckContext {
  /** Rule layers, the operator's first; a lower layer never relaxes a higher one's decision. */
  policies: readonly CompiledPolicy[];
  /** Prefixes a person allowed always for this session: they turn a matching `ask` into `allow`, never a `deny`. */
  approved?: readonly (readonly string[])[];
}

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

export function strictest(a: Decision, b: Decision): Decision {
  return RANK[a] >= RANK[b] ? a : b;
}

export function check(command: string, context: CheckContext): Evaluation {
  const fallback = context.policies.reduce<Decision>((decision, policy) => strictest(decision, policy.default ?? 'allow'), 'allow');
  const matches: PolicyMatch[] = [];
  for (const invocation of resolveScript(command)) judge(invocation, context, fallback, matches);
  let decision: Decision = 'allow';
  for (const match of matches) decision = strictest(decision, match.decision);
  const decider = matches.find((match) => match.decision === decision);
  const reason = decision === 'allow' || !decider ? 'allowed' : `${decider.subcommand}: ${decider.message}`;
  return { decision, matches, reason };
}

function judge(invocation: Invocation, context: CheckContext, fallback: Decision, out: PolicyMatch[]): void {
  const privileged = invocation.privileged ? { privileged: invocation.privileged } : {};
  const last = invocation.views.length - 1;
  let innermostMatched = false;
  invocation.views.forEach((words, view) => {
    const name = words[0];
    if (name === null || name === undefined) return;
    for (const rule of candidates(context.policies, name)) {
      const found = prefixMatch(rule.command, words);
      if (found === 'yes') {
        if (view === last) innermostMatched = true;
        const prefix = words.slice(0, rule.command.length) as string[];
        const match: PolicyMatch = { rule, subcommand: prefix.join(' '), decision: rule.decision, message: ruleMessage(rule), prefix, ...privileged };
        out.push(approvedAsk(match, words, context.approved));
      } else if (found === 'maybe' && rule.decision !== 'allow') {
        const note = invocation.notes?.[view];
        const message = note === undefined ? policyReasons.maybe(rule.label) : policyReasons.unresolved(note);
        out.push({ rule, subcommand: shown(words, invocation.text), decision: 'ask', message, ...privileged });
      }
    }
  });
  if (invocation.unresolved !== undefined) {
    out.push({ rule: null, subcommand: invocation.text, decision: 'ask', message: policyReasons.unresolved(invocation.unresolved), ...privileged });
    return;
  }
  if (invocation.transparent || innermostMatched || last < 0) return;
  const innermost = invocation.views[last]!;
  const name = innermost[0]!;
  const message = fallback === 'deny' ? policyReasons.defaultDeny : fallback === 'ask' ? policyReasons.defaultAsk : 'allowed';
  const match: PolicyMatch = { rule: null, subcommand: name, decision: fallback, message, prefix: [name], ...privileged };
  out.push(approvedAsk(match, innermost, context.approved));
}

/** An `ask` whose words a person allowed always for this session becomes `allow`. */
function approvedAsk(match: PolicyMatch, words: readonly Word[], approved: CheckContext['approved']): PolicyMatch {
  if (match.decision !== 'ask' || !approved) return match;
  const covered = approved.some((prefix) => prefixMatch(prefix.map((word) => [word]), words) === 'yes');
  return covered ? { ...match, decision: 'allow' } : match;
}

/** A sub-command's words for a message: the literal ones, a non-literal one as `…`. */
function shown(words: readonly Word[], text: string): string {
  if (words.every((word) => word !== null)) return text;
  return words.map((word) => word ?? '…').join(' ');
}
