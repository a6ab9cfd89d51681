// This side's description of every format it shares with the runner, in the shape `shellring-runner --wire` prints
// its own (crates/wire/src/spec.rs): test/executor/wire.test.ts requires the two to be equal, field by field.
import { RUNNER_ERROR_CODES } from '../../contract/index.js';
import { RUNNER_STAGE_TOKENS } from '../../contract/runner-failures.js';
import { FRAME_HEADER, FRAME_KINDS, MAX_FRAME } from './frames.js';
import { BACKENDS, ISOLATIONS, NETWORKS, PLAN_FIELDS, VIEWS } from './plan.js';
import { REQUEST_FIELDS, ROUTE_FIELDS, ROUTE_MARK } from './request.js';
import { STATUS_WORDS } from './status.js';
import { AT_TIMEOUT, CAUSES, CONTROL_WORDS } from './control.js';

export function wireSpec(): unknown {
  const letter = (byte: number) => String.fromCharCode(byte);
  return {
    request: REQUEST_FIELDS,
    sessionPlan: PLAN_FIELDS,
    planWords: { backend: BACKENDS, network: NETWORKS, isolation: ISOLATIONS, view: VIEWS },
    route: { mark: ROUTE_MARK, fields: ROUTE_FIELDS },
    frames: {
      header: FRAME_HEADER,
      maxFrame: MAX_FRAME,
      kinds: Object.fromEntries(Object.entries(FRAME_KINDS).map(([name, [byte, to]]) => [name, [letter(byte), to]])),
    },
    status: STATUS_WORDS,
    control: { words: CONTROL_WORDS, causes: CAUSES, atTimeout: AT_TIMEOUT },
    errorCodes: RUNNER_ERROR_CODES,
    stages: RUNNER_STAGE_TOKENS.stages,
    namespaceSteps: RUNNER_STAGE_TOKENS.namespaceSteps,
  };
}
