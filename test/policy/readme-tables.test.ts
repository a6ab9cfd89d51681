// docs/policies.md names every wrapper and tool the checker's tables hold, so the list a reader trusts is the list
// the checker uses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/policy/tool-table.js';
import { OPAQUE_RUNNERS, WRAPPERS } from '../../src/policy/wrapper-table.js';

const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'policies.md'), 'utf8');
const named = new Set([...page.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!));

describe('docs/policies.md', () => {
  it('names every wrapper the checker strips and every runner that asks', () => {
    for (const wrapper of [...Object.keys(WRAPPERS), ...OPAQUE_RUNNERS]) expect(named, wrapper).toContain(wrapper);
  });

  it('names every tool whose sub-command is found after its global options', () => {
    for (const tool of [...Object.keys(TOOLS), 'git']) expect(named, tool).toContain(tool);
  });
});
