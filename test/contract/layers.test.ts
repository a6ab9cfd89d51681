// The contract module is a leaf every layer may use, no import runs upward from jobs into tools, and the messages a
// call can meet, like every text a tool listing carries (descriptions, titles), are written there, not in place.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '../../src');
const workers = join(import.meta.dirname, '../../workers');

/** The layers a tool call passes through, beside the supervisor workers: a message they raise can reach the model. */
const CALL_PATH = ['env', 'executor', 'jobs', 'policy', 'sandbox', 'tools', 'runtime'].map((dir) => join(src, dir));

/** A message written in place: a string literal of words handed to an error, a failure, or a failed result. */
const IN_PLACE = /(?:new (?:ShellringError\(\s*'[A-Z_]+',|Error\()|\bfail\(|kind: 'failed', error:)\s*['`](?=[^'`]*[A-Za-z]{2})(?=[^'`]*\s)/g;

/** The parts that build what a model is listed (tool schemas, listings, annotations, plugin registrations). */
const LISTING_PATH = ['tools', 'runtime', 'faces/mcp', 'cordis'].map((dir) => join(src, dir));

/** Configuration schemas describe options to an operator (docs/configuration.md), not tools to a model. */
const OPERATOR_FACING = /(?:config|options)\.ts$/;

/** A listed text written in place: a literal of words as a `.describe()` text, a `description` or a `title`. */
const LISTED_IN_PLACE = /(?:\.describe\(|\bdescription:|\btitle:)\s*['`](?=[^'`]*[A-Za-z]{2})/g;

function listedInPlace(text: string): string[] {
  return [...text.matchAll(LISTED_IN_PLACE)].map((m) => m[0]);
}

function messagesInPlace(text: string): string[] {
  return [...text.matchAll(IN_PLACE)].map((m) => m[0]);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}

function imports(dir: string): { file: string; from: string }[] {
  return readdirSync(join(src, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(join(src, dir, file), 'utf8').matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gms)].map((m) => ({
        file: `${dir}/${file}`,
        from: m[1]!,
      })),
    );
}

describe('the contract module', () => {
  it('imports nothing outside itself', () => {
    const outside = imports('contract').filter(({ from }) => !from.startsWith('./'));
    expect(outside).toEqual([]);
  });

  it('is where the jobs layer gets its renderers: nothing in src/jobs imports the tools', () => {
    const upward = imports('jobs').filter(({ from }) => from.includes('/tools/'));
    expect(upward).toEqual([]);
  });

  it('replaces the scattered string modules', () => {
    const scattered = ['strings.ts', 'tools/strings.ts', 'jobs/strings.ts', 'tools/render.ts', 'jobs/render.ts'];
    const left = scattered.filter((file) => {
      try {
        readFileSync(join(src, file));
        return true;
      } catch {
        return false;
      }
    });
    expect(left).toEqual([]);
  });

  it('holds every message a call can meet: none is written in place on the path of a call or in the workers', () => {
    const found = [...CALL_PATH, workers]
      .flatMap(sources)
      .flatMap((file) => messagesInPlace(readFileSync(file, 'utf8')).map((message) => `${relative(src, file)}: ${message}`));
    expect(found).toEqual([]);
  });

  it('sees a message written in place, in each form it takes (the check above can fail)', () => {
    const samples = [
      "throw new ShellringError('SHELLRING_CLOSED', 'the runtime is closed');",
      "throw new ShellringError(\n  'SHELLRING_SANDBOX_ROOT',\n  `sandbox workspace root ${root} is refused`,\n);",
      'throw new Error(`shellring-runner --serve: ${errno}`);',
      "return this.#fail('the worker stopped');",
      "return { kind: 'failed', error: 'shellring-runner ended without reporting', runnerFailed: true };",
    ];
    expect(samples.map((sample) => messagesInPlace(sample).length)).toEqual([1, 1, 1, 1, 1]);
    expect(messagesInPlace("throw new ShellringError('SHELLRING_CLOSED', runtimeErrors.closed);")).toEqual([]);
  });

  it('holds every text a tool listing carries: no description, describe() text or title is written in place', () => {
    const found = LISTING_PATH.flatMap(sources)
      .filter((file) => !OPERATOR_FACING.test(file))
      .flatMap((file) => listedInPlace(readFileSync(file, 'utf8')).map((text) => `${relative(src, file)}: ${text}`));
    expect(found).toEqual([]);
  });

  it('sees a listed text written in place, in each form it takes (the check above can fail)', () => {
    const samples = [
      "spillPath: z.string().optional().describe('The file that holds the whole stream.'),",
      'properties: { session: { type: \'string\', description: `The handle to pass as session.` } },',
      "annotations: { title: 'Open a shellring session', readOnlyHint: false },",
    ];
    expect(samples.map((sample) => listedInPlace(sample).length)).toEqual([1, 1, 1]);
    expect(listedInPlace('spillPath: z.string().optional().describe(outputSchemaDocs.spillPath),')).toEqual([]);
    expect(listedInPlace("inputSchema: { type: 'object', properties: {} },")).toEqual([]);
  });
});
