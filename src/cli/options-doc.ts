// The configuration reference (docs/configuration.md), rendered from createRuntime's zod schema so it cannot drift.
import { z } from 'zod';
import { runtimeOptionsSchema } from '../runtime/options.js';
import { resourceMetadataSchema } from '../faces/http/resource-metadata.js';

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

The faces take the same options: \`serveStdio({ runtimeOptions })\` and \`serveHttp({ runtimeOptions })\`, and the CLI
sets \`sandbox.mode\` with \`--sandbox\`, \`policy\` with \`--policy FILE\` and the session directory with \`--cwd\`. The Cordis plugins take the same
fields: \`bashLocal\` the \`executor\` ones, \`bashSandbox\` those and the \`sandbox\` ones, \`jobsLocal\` the \`jobs\`
ones, \`shellEnv\` \`dshHome\`, \`toolBash\` \`enableRunInBackground\` and \`promoteOnTimeout\`.

| option | type | default | description |
| --- | --- | --- | --- |
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

const OAUTH_HEADER = `
## \`serve.oauth\`: protected-resource metadata of the HTTP face

What \`GET /.well-known/oauth-protected-resource\` (RFC 9728) says: \`serveHttp({ oauth })\`, \`serve.oauth\` in a
\`--config\` file, and the \`serve\` flags \`--resource-url\` and \`--authorization-server\` (comma-separated), from
\`src/faces/http/resource-metadata.ts\`.

| option | type | default | description |
| --- | --- | --- | --- |
`;

function table(schema: z.ZodType, prefix: string): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Node;
  return rows(json, prefix, [])
    .map((row) => `| \`${row.path}\` | ${cell(row.type)} | ${cell(row.defaults)} | ${cell(row.description)} |`)
    .join('\n');
}

export function configurationMarkdown(): string {
  return `${HEADER}${table(runtimeOptionsSchema, '')}\n${OAUTH_HEADER}${table(resourceMetadataSchema, 'serve.oauth')}\n`;
}
