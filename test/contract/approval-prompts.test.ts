// What a person reads when asked to approve: one sentence per line, whatever punctuation the model's justification
// or a rule's message already ends with.
import { describe, expect, it } from 'vitest';
import { approvalPrompt, commandApprovalPrompt, escalationReason } from '../../src/contract/index.js';

const escalation = (justification: string) =>
  approvalPrompt({ toolName: 'bash', reason: escalationReason('workspace-write', justification), command: 'touch f', cwd: '/w', mode: 'workspace-write', currentMode: 'read-only' });

describe('approval prompts', () => {
  it.each(['the task writes this file', 'the task writes this file.', 'may it write this file?', 'it must write this file!'])(
    'end the request line with one stop (%s)',
    (justification) => {
      const first = escalation(justification).split('\n')[0]!;
      expect(first).toBe(`The bash tool asks to escalate sandbox to workspace-write: ${/[.!?]$/.test(justification) ? justification : `${justification}.`}`);
      expect(first).not.toMatch(/\.\.$|[!?]\.$/);
    },
  );

  it("end a command's request line with one stop, whatever the rule's message ends with", () => {
    const prompt = (message: string) =>
      commandApprovalPrompt({ toolName: 'bash', command: 'id -u', subcommand: 'id', message, cwd: '/w', always: false, ruleLabel: 'id' }).split('\n')[0];
    expect(prompt('looking up users needs a person')).toBe('The bash tool asks to run id: looking up users needs a person.');
    expect(prompt('looking up users needs a person.')).toBe('The bash tool asks to run id: looking up users needs a person.');
  });
});
