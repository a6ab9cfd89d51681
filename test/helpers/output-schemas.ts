// Every tool result a face test receives is checked against the outputSchema its tool lists, as a validating client
// (the SDKs, the MCP Inspector) checks it: a result that fails its own tool's schema fails the test that got it.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

const validator = new AjvJsonSchemaValidator();

interface Listed {
  name: string;
  outputSchema?: Record<string, unknown>;
}

/** Throws when `result` (a success with structuredContent) fails the outputSchema `tools` list for `tool`. */
export function assertConforms(tools: readonly Listed[], tool: string, result: { isError?: unknown; structuredContent?: unknown }): void {
  if (result.isError) return;
  const schema = tools.find((listed) => listed.name === tool)?.outputSchema;
  if (!schema) throw new Error(`${tool} lists no outputSchema`);
  if (result.structuredContent === undefined) throw new Error(`${tool} returned no structuredContent, which its outputSchema requires`);
  const checked = validator.getValidator(schema)(result.structuredContent);
  if (!checked.valid) throw new Error(`${tool}'s result fails its outputSchema: ${checked.errorMessage}\n${JSON.stringify(result.structuredContent)}`);
}
