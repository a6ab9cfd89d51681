// The configuration reference (docs/configuration.md), rendered from createRuntime's zod schema so it cannot drift.
import { z } from 'zod';
import { runtimeOptionsSchema } from '../runtime/options.js';
import { COMMANDS } from './commands.js';
import { serveConfigSchema } from './config.js';

type Node = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Node[];
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: Node | boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
};

interface Row {
  path: string;
  type: string;
  defaults: string;
  description: string;
}

const HEADER = `# Configuration reference

Every option of \`createRuntime(options)\`, generated from its zod schema (\`src/runtime/options.ts\`,
\`src/executor/config.ts\`, \`src/env/policy.ts\`) by \`npm run docs:config\`; \`test/docs/configuration.test.ts\` fails
when this page and the code differ. Options are validated once: an unknown key or a value out of range is an
error naming the option (\`invalid runtime options: <path>: <reason>\`).

The faces take the same options: \`serveStdio({ runtimeOptions })\` and \`serveHttp({ runtimeOptions })\`. The CLI takes
them all from \`--config FILE\` (JSON, validated by the same schema) and the main ones as the flags of the \`flag\`
column, which win over the file; \`--cwd\` names the session directory. The Cordis plugins take the same
fields: \`bashLocal\` the \`executor\` ones, \`bashSandbox\` those and the \`sandbox\` ones, \`jobsLocal\` the \`jobs\`
ones, \`shellEnv\` \`dshHome\`, \`toolBash\` \`enableRunInBackground\` and \`promoteOnTimeout\`.

| option | type | default | flag | description |
| --- | --- | --- | --- | --- |
`;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function typeOf(node: Node): string {
  if (node.anyOf) return node.anyOf.map(typeOf).join(' or ');
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.enum) return node.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ');
  if (node.type === undefined) return 'function';
  if (node.type === 'array') return `array of ${typeOf(node.items ?? {})}`;
  if (node.type === 'object' && !node.properties && typeof node.additionalProperties === 'object') {
    return `object of ${typeOf(node.additionalProperties)}`;
  }
  if (node.type === 'integer' || node.type === 'number') {
    const low = node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : node.minimum;
    const high = node.maximum !== undefined && node.maximum < MAX_SAFE ? node.maximum : undefined;
    if (low !== undefined && high !== undefined) return `${node.type} ${low}–${high}`;
    if (low !== undefined) return `${node.type} ≥ ${low}`;
    return String(node.type);
  }
  if (node.type === 'string' && node.minLength) return 'non-empty string';
  return String(node.type);
}

function defaultOf(node: Node): string {
  if (node.default === undefined) return '—';
  const value = node.default;
  if (typeof value === 'number' && value >= 1024 * 1024 && value % (1024 * 1024) === 0) {
    const mib = value / (1024 * 1024);
    return mib % 1024 === 0 ? `${value} (${mib / 1024} GiB)` : `${value} (${mib} MiB)`;
  }
  return `\`${JSON.stringify(value)}\``;
}

/** The object variant of a node (a plain object, or `false | object`), whose fields get rows of their own. */
function objectOf(node: Node): Node | undefined {
  if (node.properties) return node;
  return node.anyOf?.find((variant) => variant.properties);
}

function rows(node: Node, prefix: string, out: Row[]): Row[] {
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    const inner = objectOf(child);
    out.push({
      path,
      type: typeOf(inner && !child.anyOf ? { type: 'object' } : child),
      defaults: inner ? '—' : defaultOf(child),
      description: child.description ?? '',
    });
    if (inner) rows(inner, path, out);
  }
  return out;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

const SERVE_HEADER = `
## \`serve\`: the HTTP server's section of a \`--config\` file

What the \`shellring serve\` flags set, by the same names in camelCase (a flag given on the command line wins), from
\`serveConfigSchema\` in \`src/cli/config.ts\`. \`serve.oauth\` is what \`GET /.well-known/oauth-protected-resource\`
(RFC 9728) says: \`serveHttp({ oauth })\`, and the flags \`--resource-url\` and \`--authorization-server\`
(comma-separated), from \`src/faces/http/resource-metadata.ts\`.

| option | type | default | flag | description |
| --- | --- | --- | --- | --- |
`;

/** The flags that set `path`, each with the commands that take it: `` `--sandbox` (run, mcp, serve) ``. */
function flagsOf(path: string): string {
  const byFlag = new Map<string, string[]>();
  for (const [command, { flags }] of Object.entries(COMMANDS)) {
    for (const [name, spec] of Object.entries(flags)) {
      if (spec.sets?.includes(path)) byFlag.set(name, [...(byFlag.get(name) ?? []), command]);
    }
  }
  return [...byFlag].map(([name, commands]) => `\`--${name}\` (${commands.join(', ')})`).join(', ') || '—';
}

function table(schema: z.ZodType, prefix: string): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Node;
  return rows(json, prefix, [])
    .map((row) => `| \`${row.path}\` | ${cell(row.type)} | ${cell(row.defaults)} | ${flagsOf(row.path)} | ${cell(row.description)} |`)
    .join('\n');
}

export function configurationMarkdown(): string {
  return `${HEADER}${table(runtimeOptionsSchema, '')}\n${SERVE_HEADER}${table(serveConfigSchema, 'serve')}\n`;
}
