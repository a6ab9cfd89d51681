// session_open, offered by the MCP 2026-07-28 face only: mints a handle to a state of the caller's own.
import { modernTexts, modernToolDocs, outputSchemaDocs, sessionErrors, toolTitles } from '../contract/index.js';
import { ShellringError } from '../errors.js';
import { errorResult, textResult, type ToolDefinition } from './tool.js';
import type { ToolSpec } from './spec.js';
import { knownArgs } from './plain-args.js';

// It takes no arguments, so its schemas are stated as listed rather than validated.
const definition: ToolDefinition = {
  name: 'session_open',
  description: modernToolDocs.sessionOpen,
  schema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: { type: 'object', properties: { session: { type: 'string', description: outputSchemaDocs.session } }, required: ['session'] },
};

export const sessionOpenTool: ToolSpec = {
  name: definition.name,
  // Opening a state writes nothing a command can see, and two opens give two states.
  annotations: { title: toolTitles.sessionOpen, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  only: 'mcp-2026',
  needs: [],
  build: () => ({
    definitionFor: () => definition,
    async call(input, context) {
      // Only a face with states of its own can open one; elsewhere the tool does not exist.
      if (!context.openState) return errorResult(new ShellringError('SHELLRING_UNKNOWN_TOOL', sessionErrors.unknownTool(definition.name)));
      try {
        knownArgs(definition.name, input, [], []);
      } catch (error) {
        return errorResult(error);
      }
      const handle = context.openState();
      return textResult(modernTexts.sessionOpened(handle), { session: handle });
    },
  }),
};
