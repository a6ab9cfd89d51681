// docs/configuration.md is generated from createRuntime's zod schema: it fails here when it drifts from the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationMarkdown } from '../../src/cli/options-doc.js';
import { runtimeOptionsSchema } from '../../src/runtime/options.js';

const page = join(import.meta.dirname, '../../docs/configuration.md');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` renders from the schema today', () => {
    // On failure: run `npm run docs:config` and commit docs/configuration.md.
    expect(readFileSync(page, 'utf8')).toBe(configurationMarkdown());
  });

  it('describes every option, and a new option changes the page', () => {
    const rows = configurationMarkdown().split('\n').filter((line) => line.startsWith('| `'));
    for (const row of rows) expect(row, row).not.toMatch(/\|\s*\|$/);
    for (const option of Object.keys(runtimeOptionsSchema.shape)) expect(rows.some((row) => row.startsWith(`| \`${option}\``)), option).toBe(true);
  });
});
