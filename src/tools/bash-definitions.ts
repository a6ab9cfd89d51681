// The bash tool's definitions: one per shape a session may see (escalation offered or not, its job limit reached or
// not, completion notices delivered or not), each built once from the composition's configuration, so one
// configuration always lists the same bytes (prompt caches keep hitting).
import { bashDescription, type CommandLimits } from '../contract/index.js';
import { bashArgsSchema } from './bash-schema.js';
import { bashOutputSchema } from './output-schemas.js';
import type { ToolDefinition } from './tool.js';

export interface BashComposition {
  /** run_in_background is offered: background enabled and a job registry composed. */
  background: boolean;
  /** A command still running at its timeout is handed to a background job. */
  promotes: boolean;
  /** The executor sandboxes. */
  sandbox: boolean;
  limits: CommandLimits;
}

/** What one session's definition depends on. */
export interface BashShape {
  /** Someone can approve an escalation for this session. */
  escalates: boolean;
  /** Promotion is configured but the session holds as many jobs as it may: a timeout would kill. */
  atLimit: boolean;
  notices: boolean;
}

export class BashDefinitions {
  readonly #composition: BashComposition;
  readonly #built = new Map<string, ToolDefinition>();

  constructor(composition: BashComposition) {
    this.#composition = composition;
  }

  /** The schema every call is judged by, whatever was listed: a field sent anyway meets its own contract error. */
  callSchema() {
    const { background, promotes, sandbox, limits } = this.#composition;
    return bashArgsSchema({ background, promotes, sandbox, limits });
  }

  get(shape: BashShape): ToolDefinition {
    const { background, sandbox, limits } = this.#composition;
    // Escalation is offered only where the executor sandboxes; a session at its limit is promised no hand-over.
    const escalation = sandbox && shape.escalates;
    const promotes = this.#composition.promotes && !shape.atLimit;
    const key = `${escalation}:${promotes}:${shape.notices}`;
    let definition = this.#built.get(key);
    if (!definition) {
      definition = {
        name: 'bash',
        description: bashDescription({ limits, notices: shape.notices, background, promotes, sandbox, escalation }),
        schema: bashArgsSchema({ background, promotes, sandbox: escalation, limits }),
        outputSchema: bashOutputSchema,
      };
      this.#built.set(key, definition);
    }
    return definition;
  }
}
