// The command policy's configuration, validated with zod: rules (an argv prefix, a decision, a message, examples)
// and the decision for a command no rule names.
import { z } from 'zod';

export const DECISIONS = ['allow', 'ask', 'deny'] as const;
export type Decision = (typeof DECISIONS)[number];

const word = z.string().min(1);

export const policyRuleSchema = z
  .object({
    decision: z.enum(DECISIONS).describe('allow, ask (a person approves) or deny; the strictest decision of all matching rules wins.'),
    command: z
      .array(z.union([word, z.array(word).min(1)]))
      .min(1)
      .describe('An argv prefix: the first words of a simple command (after wrappers and assignments); an inner array lists alternatives.'),
    message: z.string().min(1).optional().describe('What the model and the person read when this rule refuses or asks.'),
    examples: z
      .object({
        match: z.array(z.string()).optional().describe('Commands this rule must match; checked when the policy loads.'),
        notMatch: z.array(z.string()).optional().describe('Commands this rule must not match; checked when the policy loads.'),
      })
      .strict()
      .optional(),
  })
  .strict();

export const policyConfigSchema = z
  .object({
    default: z
      .enum(DECISIONS)
      .optional()
      .describe('The decision for a command no rule matches (default allow); the strictest default of all layers wins.'),
    rules: z.array(policyRuleSchema).default([]).describe('The rules, matched against every simple command of a call.'),
  })
  .strict();

export type PolicyRule = z.input<typeof policyRuleSchema>;
export type PolicyConfig = z.input<typeof policyConfigSchema>;
