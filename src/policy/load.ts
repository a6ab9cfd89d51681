// Loading a policy layer: validated once with zod, compiled, and every rule's examples checked, so a rule that
// does not say what its author meant stops the start with an error naming it.
import { z } from 'zod';
import { policyLoadErrors } from '../contract/index.js';
import { parseConfig, ShellringError } from '../errors.js';
import { policyConfigSchema, type PolicyConfig } from './config.js';
import { resolveScript } from './resolve.js';
import { compileRules, prefixMatch, type CompiledPolicy, type PolicyLayer, type RuleRef } from './rules.js';

/**
 * `where` and `path` name the policy in errors as its configuration spells it: `runtime options` and `policy.`,
 * or `--policy 'file'` and nothing.
 */
export function loadPolicy(input: PolicyConfig, layer: PolicyLayer, where: string, path = ''): CompiledPolicy {
  // Under a key (`policy.`), validation errors name the field by its full path.
  const config = path
    ? parseConfig(z.object({ [path.slice(0, -1)]: policyConfigSchema }), { [path.slice(0, -1)]: input }, where)[path.slice(0, -1)]!
    : parseConfig(policyConfigSchema, input, where);
  const compiled = compileRules(layer, config.rules, config.default);
  config.rules.forEach((rule, i) => {
    const ref = compiled.rules[i]!;
    for (const example of rule.examples?.match ?? []) {
      if (!matches(ref, example)) fail(where, `${path}rules.${i}`, ref, example, 'match');
    }
    for (const example of rule.examples?.notMatch ?? []) {
      if (matches(ref, example)) fail(where, `${path}rules.${i}`, ref, example, 'notMatch');
    }
  });
  return compiled;
}

/** Whether the rule names some simple command of `example`, as the checker would find them. */
function matches(rule: RuleRef, example: string): boolean {
  return resolveScript(example).some((invocation) => invocation.views.some((words) => prefixMatch(rule.command, words) === 'yes'));
}

function fail(where: string, path: string, rule: RuleRef, example: string, expected: 'match' | 'notMatch'): never {
  throw new ShellringError('SHELLRING_INVALID_CONFIG', policyLoadErrors.example(where, path, rule.label, example, expected));
}

/** Whether any layer has something to check: without rules or a stricter default, every command is allowed. */
export function isActive(policies: readonly (CompiledPolicy | undefined)[]): boolean {
  return policies.some((policy) => policy !== undefined && (policy.rules.length > 0 || (policy.default ?? 'allow') !== 'allow'));
}
