// The contract module is a leaf every layer may use, no import runs upward from jobs into tools, and every text that can
// reach a model (messages a call can meet, notices, the texts a tool listing carries) is written there, not in place.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
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

/**
 * Where any text can reach a model: the call path and the workers (results, errors, notices, stderr lines), the MCP
 * face (tool results, approval forms, task notices, refusals) and the HTTP face's command caps.
 */
const MODEL_PATH = [...CALL_PATH, workers, join(src, 'faces/mcp'), join(src, 'faces/http/limits.ts')];

/** Prose: two words of letters in one literal part (a file name, flag, shell fragment or format string has none). */
const PROSE = /[A-Za-z]{2,}[,;:]? +[A-Za-z]{2,}/;

/**
 * Prose written in place on the model's path that never reaches a model, by file, each with what it is for; a text
 * is named by its start. Anything else there belongs in src/contract/.
 */
const NOT_FOR_THE_MODEL: Record<string, { for: string; starts: string[] }> = {
  'env/policy.ts': {
    for: "the env option's schema: its texts and refusals are an operator's (docs/configuration.md)",
    starts: [
      'expected a non-empty glob',
      'What to start from',
      'expected a non-empty glob',
      'Globs of host variable names',
      'Keep credential-looking',
      'Globs (`*`',
      'When given, only names',
      'a value cannot hold',
      '${JSON.stringify(name)} is not a variable name',
      'Variables set for every command',
    ],
  },
  'env/registry.ts': {
    for: 'what EnvRegistry.list() tells a program about the built-in DSH_* variables',
    starts: ['absolute home of the harness', 'set to 1 in every', 'id of the calling agent', 'absolute path of the session JSONL'],
  },
  'sandbox/read-policy.ts': { for: "the readDeny option's refusals, an operator's", starts: ['expected an absolute path', 'a * may only appear'] },
  'jobs/registry.ts': { for: 'the label of a configuration refusal', starts: ['job options'] },
  'runtime/assembly.ts': { for: 'the label of a configuration refusal', starts: ['sandbox config'] },
  'runtime/runtime.ts': { for: 'the label of a configuration refusal', starts: ['runtime options'] },
  'runtime/session.ts': { for: 'the label of a configuration refusal', starts: ['session options', 'session network'] },
  'policy/tool-table.ts': { for: "a tool's built-in alias: the command words it stands for", starts: ['pr checkout'] },
  'faces/mcp/progress.ts': { for: "the progressIntervalMs option's refusal, an operator's", starts: ['invalid progressIntervalMs'] },
  'faces/mcp/modern/endpoint.ts': { for: "the instance id option's refusal, an operator's", starts: ['invalid instance id'] },
  'faces/mcp/http.ts': { for: "serveHttp's refusals to its caller", starts: ['serveHttp: pass either', 'refusing to serve on', 'the token option'] },
  'faces/mcp/http-router.ts': {
    for: 'HTTP answers to a client (probes, JSON-RPC errors of the endpoint)',
    starts: [
      'at the session limit',
      'Not found: ',
      'Service unavailable: this server is shutting down',
      'Session not found',
      'Bad Request: Mcp-Session-Id',
      'Service unavailable: this server is shutting down and opens',
      'Service unavailable: this server is at its session limit',
    ],
  },
};

/** The string literals of a source file with prose in them (a template by its literal parts), as written. */
function proseLiterals(text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isLiteralTypeNode(node)) return;
    const parts =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? [node.text]
        : ts.isTemplateExpression(node)
          ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)]
          : [];
    if (parts.some((part) => PROSE.test(part))) found.push(ts.isTemplateExpression(node) ? node.getText().slice(1, -1) : (node as ts.LiteralLikeNode).text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, true));
  return found;
}

/** Each prose literal on the model's path, as `<file>: <text>`, less the pinned ones (which must all still be there). */
function unpinnedProse(): { unpinned: string[]; stale: string[] } {
  const unpinned: string[] = [];
  const left = Object.fromEntries(Object.entries(NOT_FOR_THE_MODEL).map(([file, { starts }]) => [file, [...starts]]));
  for (const file of MODEL_PATH.flatMap((path) => (statSync(path).isFile() ? [path] : sources(path)))) {
    if (OPERATOR_FACING.test(file)) continue;
    const name = relative(src, file);
    for (const literal of proseLiterals(readFileSync(file, 'utf8'))) {
      const pins = left[name] ?? [];
      // The longest matching start: 'Service unavailable: this server is shutting down' also starts its longer kin.
      const pin = pins.filter((start) => literal.startsWith(start)).sort((a, b) => b.length - a.length)[0];
      if (pin === undefined) unpinned.push(`${name}: ${literal}`);
      else pins.splice(pins.indexOf(pin), 1);
    }
  }
  return { unpinned, stale: Object.entries(left).flatMap(([file, starts]) => starts.map((start) => `${file}: ${start}`)) };
}

function listedInPlace(text: string): string[] {
  return [...text.matchAll(LISTED_IN_PLACE)].map((m) => m[0]);
}

function messagesInPlace(text: string): string[] {
  return [...text.matchAll(IN_PLACE)].map((m) => m[0]);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.c?ts$/.test(file))
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

  it('holds every text that can reach a model: no prose literal is written in place on its path, but the pinned few that are not for a model', () => {
    expect(unpinnedProse()).toEqual({ unpinned: [], stale: [] });
  });

  it('sees prose written in place, in a string or a template, and passes what is not prose (the check above can fail)', () => {
    const samples = [
      "listener.crashed('the worker exited');",
      'return { state: \'failed\', detail: `exit code: ${code}` };',
      'const reason = `session ${id} is closed`;',
      "callTool('job_kill', { reason: \"cancelled by the client\" });",
    ];
    expect(samples.map((sample) => proseLiterals(sample).length)).toEqual([1, 1, 1, 1]);
    const notProse = [
      "listener.crashed(supervisionErrors.workerExited);",
      "import { x } from '../contract/index.js';",
      'const line = `exec ${quote(path)} --stdio`;',
      "const FROM_STDIN = 'eval \"$(</dev/stdin)\" </dev/null';",
      "type Kind = 'exit code';",
      "const shares = `cpu.shares=${n}`;",
    ];
    expect(notProse.flatMap(proseLiterals)).toEqual([]);
  });
});
