// Every number a model reads in a listing or a prompt is its configuration's own: each text of every face (the
// library's listings and prompt sections, MCP 2025-11-25 and 2026-07-28 over stdio, the Cordis plugins) is rendered
// under a matrix of configurations, every number in every tool description, schema description, prompt section and
// instructions text is collected, and any that is not a configured figure of that configuration fails the test.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type RuntimeOptions } from '../../src/index.js';
import { cordisListing, legacyListing, modernListing } from '../faces/face-listings.js';
import { workdir } from '../faces/helpers.js';

const work = workdir('numbers');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The only numbers a text may hold that no operator configures: the spec's own words (a description of 5-10 words),
 * the value `$DSH_SHELL=1` always has, and the example id `bash-1`.
 */
const FIXED = [1, 5, 10];

interface Figures {
  executor: { timeoutMs: number; maxTimeoutMs: number; maxOutputBytes: number };
  jobs: { readBytes: number; waitMs: number; maxWaitMs: number; maxSettledPerOwner: number; maxJobsPerOwner: number };
}

const DEFAULTS: Figures = {
  executor: { timeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputBytes: 64_000 },
  jobs: { readBytes: 64_000, waitMs: 30_000, maxWaitMs: 600_000, maxSettledPerOwner: 20, maxJobsPerOwner: 10 },
};

/** Figures no default shares, so a default written into a text cannot pass for a configured one. */
const CONFIGURED: Figures = {
  executor: { timeoutMs: 30_000, maxTimeoutMs: 90_000, maxOutputBytes: 16_000 },
  jobs: { readBytes: 5_000, waitMs: 7_000, maxWaitMs: 45_000, maxSettledPerOwner: 3, maxJobsPerOwner: 4 },
};

/** The matrix: figures × the switches that change which texts exist. */
const MATRIX: [string, Figures, Partial<RuntimeOptions>][] = [
  ['defaults', DEFAULTS, {}],
  ['configured', CONFIGURED, {}],
  ['configured, a sandbox and a policy', CONFIGURED, { sandbox: { mode: 'read-only' }, policy: { rules: [{ decision: 'ask', command: ['id'] }] } }],
  ['configured, promoteOnTimeout: false', CONFIGURED, { promoteOnTimeout: false }],
  ['configured, no background', CONFIGURED, { enableRunInBackground: false }],
  ['configured, no jobs', CONFIGURED, { jobs: false }],
  ['only the executor configured', { ...DEFAULTS, executor: CONFIGURED.executor }, {}],
  ['only the jobs configured', { ...DEFAULTS, jobs: CONFIGURED.jobs }, {}],
];

/** Every text a model reads in a listing or prompt: descriptions and titles at any depth, section texts, instructions. */
function texts(node: unknown): string[] {
  if (typeof node === 'string') return [];
  if (Array.isArray(node)) return node.flatMap(texts);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    ['description', 'title', 'text', 'instructions', 'prompt'].includes(key) && typeof value === 'string' ? [value] : texts(value),
  );
}

const numbersIn = (text: string) => [...text.matchAll(/\d+/g)].map((match) => Number(match[0]));

function options(figures: Figures, switches: Partial<RuntimeOptions>): RuntimeOptions {
  return { ...switches, executor: { ...figures.executor, threads: 1 }, ...(switches.jobs === false ? { jobs: false } : { jobs: figures.jobs }) };
}

/** What every face shows under `runtimeOptions`. */
async function everyFace(runtimeOptions: RuntimeOptions, figures: Figures, sandboxed: boolean): Promise<unknown> {
  const runtime = await createRuntime(runtimeOptions);
  let library: unknown;
  try {
    const session = runtime.session({ id: 'numbers', cwd: work });
    library = {
      tools: runtime.listTools(),
      quiet: runtime.listTools({ notices: false }),
      sections: runtime.promptSections(),
      sectionsQuiet: runtime.promptSections({ notices: false, workspace: work }),
      session: { tools: session.listTools(), sections: session.promptSections() },
    };
  } finally {
    await runtime.close();
  }
  const face = { runtimeOptions, cwd: work };
  const mcp = {
    legacy: await legacyListing(face, {}),
    legacyEliciting: await legacyListing(face, { elicitation: { form: {} } }),
    modern: await modernListing(face, {}),
    modernEliciting: await modernListing(face, { elicitation: { form: {} } }),
  };
  return { library, mcp, cordis: await cordisFace(figures, runtimeOptions, sandboxed) };
}

function cordisFace(figures: Figures, runtimeOptions: RuntimeOptions, sandboxed: boolean) {
  return cordisListing({
    dshHome: work,
    executor: { ...figures.executor, cwd: work, threads: 1 },
    ...(sandboxed ? { sandbox: { mode: 'read-only' } } : {}),
    jobs: runtimeOptions.jobs === false ? false : figures.jobs,
    toolBash: { enableRunInBackground: runtimeOptions.enableRunInBackground ?? true, promoteOnTimeout: runtimeOptions.promoteOnTimeout ?? true },
  });
}

describe('numbers in what a model reads', () => {
  it.each(MATRIX)('are the configuration’s own (%s)', async (_name, figures, switches) => {
    // The workspace's path is a name, not a figure (its random part may hold digits).
    const shown = texts(await everyFace(options(figures, switches), figures, switches.sandbox !== undefined)).map((text) => text.replaceAll(work, '<workspace>'));
    expect(shown.length).toBeGreaterThan(20);
    const own = new Set([...Object.values(figures.executor), ...(switches.jobs === false ? [] : Object.values(figures.jobs)), ...FIXED]);
    const foreign = shown.flatMap((text) => numbersIn(text).filter((n) => !own.has(n)).map((n) => `${n} in: ${text.slice(0, 160)}`));
    expect(foreign).toEqual([]);
    // The figures a text states are rendered, not merely absent: each of these is told somewhere.
    const told = new Set(shown.flatMap(numbersIn));
    const stated = [figures.executor.timeoutMs, figures.executor.maxTimeoutMs, figures.executor.maxOutputBytes];
    if (switches.jobs !== false) stated.push(figures.jobs.waitMs, figures.jobs.maxWaitMs);
    for (const figure of stated) expect(told.has(figure), `${figure} is told`).toBe(true);
  });

  it('the check sees a number that is not the configuration’s', () => {
    expect(numbersIn('Milliseconds before the command is killed (default 120000, at most 600000).')).toEqual([120000, 600000]);
    expect(texts({ tools: [{ description: 'a', inputSchema: { properties: { x: { description: 'b 7' } } } }], instructions: 'c' })).toEqual(['a', 'b 7', 'c']);
  });
});
