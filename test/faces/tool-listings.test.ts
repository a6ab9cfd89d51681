// What every face shows a model, pinned byte for byte: the tools/list JSON and instructions of both MCP revisions
// (served in-process over the stdio face's streams), the runtime's listing and prompt sections, and the Cordis
// plugins' tools and prompt, per configuration. tool-listings.json is the record; a change to it is a contract change.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type RuntimeOptions } from '../../src/index.js';
import type { serveStdio } from '../../src/faces/mcp/index.js';
import { cordisListing, legacyListing, modernListing } from './face-listings.js';
import { workdir } from './helpers.js';

const work = workdir('listings');
const WORK = '<workspace>';

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Paths of this run are replaced, so the record holds no machine's directories. */
function portable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(work, WORK));
}

const POLICY: RuntimeOptions['policy'] = { rules: [{ decision: 'ask', command: ['id'], message: 'looking up users needs a person' }] };

const MCP_CONFIGS: [string, Parameters<typeof serveStdio>[0]][] = [
  ['default', {}],
  ['jobs: false', { runtimeOptions: { jobs: false } }],
  ['promoteOnTimeout: false', { runtimeOptions: { promoteOnTimeout: false } }],
  ['read-only sandbox with a policy', { sandboxMode: 'read-only', runtimeOptions: { policy: POLICY } }],
];

const RUNTIME_CONFIGS: [string, RuntimeOptions][] = [
  ['default', {}],
  ['enableRunInBackground: false', { enableRunInBackground: false }],
  ['promoteOnTimeout: false', { promoteOnTimeout: false }],
  ['jobs: false', { jobs: false }],
  ['policy', { policy: POLICY }],
];

describe('what every face lists', () => {
  it.each(MCP_CONFIGS)('MCP 2025-11-25 and 2026-07-28 over stdio (%s)', async (name, options) => {
    const shown = {
      '2025-11-25': await legacyListing({ ...options, cwd: work }, {}),
      '2025-11-25 eliciting': await legacyListing({ ...options, cwd: work }, { elicitation: { form: {} } }),
      '2026-07-28': await modernListing({ ...options, cwd: work }, {}),
      '2026-07-28 eliciting': await modernListing({ ...options, cwd: work }, { elicitation: { form: {} } }),
    };
    await expect(JSON.stringify(portable(shown), null, 1)).toMatchFileSnapshot(`listings/mcp-${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
  });

  it.each(RUNTIME_CONFIGS)('the runtime (%s)', async (name, options) => {
    const runtime = await createRuntime({ ...options, executor: { threads: 1 } });
    try {
      const session = runtime.session({ id: 'listing', cwd: work });
      const shown = { tools: runtime.listTools(), sections: runtime.promptSections(), session: { tools: session.listTools(), sections: session.promptSections() } };
      await expect(JSON.stringify(portable(shown), null, 1)).toMatchFileSnapshot(`listings/runtime-${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
    } finally {
      await runtime.close();
    }
  });

  it.each([
    ['with jobs', true, false],
    ['without jobs', false, false],
    ['with jobs and a sandbox', true, true],
  ])('the Cordis plugins (%s)', async (name, withJobs, sandboxed) => {
    const shown = await cordisListing({
      dshHome: work,
      executor: { cwd: work, threads: 1 },
      ...(sandboxed ? { sandbox: { mode: 'workspace-write', readAllow: ['/srv/shared'] } } : {}),
      jobs: withJobs ? {} : false,
    });
    await expect(JSON.stringify(portable(shown), null, 1)).toMatchFileSnapshot(`listings/cordis-${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
  });
});
