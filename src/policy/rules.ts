// Compiled rules: each rule's words as alternatives, its label and layer, indexed by command name, and the
// prefix match that tells a definite match from one a non-literal word leaves open.
import { policyReasons, ruleLabel } from '../contract/index.js';
import type { Decision } from './config.js';
import { basename } from './resolve.js';
import type { Word } from './parse.js';

/** Where a rule comes from: the operator's runtime options, the embedding host's session, a person's approval. */
export type PolicyLayer = 'runtime' | 'session' | 'approved';

/** A rule as evaluations, approval requests and errors name it. */
export interface RuleRef {
  layer: PolicyLayer;
  /** Its position in its layer's rules, from 0 (as `policy.rules.<index>` names it). */
  index: number;
  decision: Decision;
  /** Each position's alternatives. */
  command: string[][];
  message?: string;
  /** `git push --force|-f`. */
  label: string;
}

export interface CompiledPolicy {
  layer: PolicyLayer;
  /** The decision for a command no rule matches, if this layer sets one. */
  default?: Decision;
  rules: RuleRef[];
  /** Rules by each alternative of their first word. */
  byName: Map<string, RuleRef[]>;
}

export function compileRules(
  layer: PolicyLayer,
  rules: readonly { decision: Decision; command: readonly (string | readonly string[])[]; message?: string }[],
  defaultDecision?: Decision,
): CompiledPolicy {
  const refs = rules.map((rule, i): RuleRef => {
    const command = rule.command.map((word) => (typeof word === 'string' ? [word] : [...word]));
    const ref: RuleRef = { layer, index: i, decision: rule.decision, command, label: ruleLabel(command) };
    if (rule.message !== undefined) ref.message = rule.message;
    return ref;
  });
  const byName = new Map<string, RuleRef[]>();
  for (const ref of refs) {
    for (const name of new Set(ref.command[0]!)) {
      const list = byName.get(name);
      if (list) list.push(ref);
      else byName.set(name, [ref]);
    }
  }
  const compiled: CompiledPolicy = { layer, rules: refs, byName };
  if (defaultDecision !== undefined) compiled.default = defaultDecision;
  return compiled;
}

export type PrefixMatch = 'yes' | 'maybe' | 'no';

/**
 * Whether `words` starts with `command`. A command name given as a path matches by its last component too
 * (`/bin/rm` is `rm`). A non-literal word before the prefix is decided makes it `maybe`: it may expand to
 * anything, any number of words included.
 */
export function prefixMatch(command: readonly (readonly string[])[], words: readonly Word[]): PrefixMatch {
  for (let i = 0; i < command.length; i += 1) {
    if (i >= words.length) return 'no';
    const word = words[i];
    if (word === null || word === undefined) return 'maybe';
    const alternatives = command[i]!;
    if (alternatives.includes(word)) continue;
    if (i === 0 && word.includes('/') && alternatives.includes(basename(word))) continue;
    return 'no';
  }
  return 'yes';
}

/** The rules of `policies` whose first word may name `name`. */
export function candidates(policies: readonly CompiledPolicy[], name: string): RuleRef[] {
  const base = basename(name);
  const found: RuleRef[] = [];
  for (const policy of policies) {
    const direct = policy.byName.get(name);
    if (direct) found.push(...direct);
    if (base !== name) {
      const byBase = policy.byName.get(base);
      if (byBase) found.push(...byBase);
    }
  }
  return found;
}

/** A rule's own message, else the contract's default for its decision. */
export function ruleMessage(rule: RuleRef): string {
  return rule.message ?? (rule.decision === 'deny' ? policyReasons.deny : rule.decision === 'ask' ? policyReasons.ask : 'allowed');
}
