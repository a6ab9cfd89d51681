// Errors of the layers under the tools (environment registry, executor, sandbox, sessions) that reach a caller or a model.
import { bashArgErrors, MAX_COMMAND_BYTES } from './bash-texts.js';
import { kindOf, shownId, shownJson } from './shown.js';

export const bashEnvErrors = {
  emptyName: 'bash env contributor name must be non-empty',
  duplicate: (name: string) => `bash env contributor "${name}" is already registered`,
  invalidKey: (name: string, key: string) => `bash env contributor "${name}" declared invalid key "${key}"`,
  reserved: (name: string, key: string) => `bash env contributor "${name}" cannot own reserved key "${key}"`,
  undescribed: (name: string, key: string) => `bash env contributor "${name}" must describe "${key}"`,
  owned: (key: string, owner: string, name: string) =>
    `bash env key "${key}" is already owned by contributor "${owner}"; contributor "${name}" cannot also own it`,
  undeclared: (name: string, key: string) => `bash env contributor "${name}" returned undeclared key "${key}"`,
  nonString: (name: string, key: string) => `bash env contributor "${name}" returned a non-string value for "${key}"`,
};

export const executorErrors = {
  sandboxUnavailable: (mode: string) =>
    `sandbox mode "${mode}" is requested but no sandbox backend is usable on this host; refusing to run the command unconfined.`,
  command: bashArgErrors.command,
  commandTooLong: (bytes: number) =>
    `invalid command: ${bytes} bytes is over the ${MAX_COMMAND_BYTES}-byte limit Linux sets on one argument (MAX_ARG_STRLEN), and a command that long reaches bash on its stdin, which this request's stdin already fills; nothing ran. Shorten the command (write the script to a file and run it with bash <file>) or pass the input another way`,
  timeoutMs: (value: unknown) => `invalid timeoutMs: expected a positive number, got ${shownJson(value)}`,
  workdir: (value: unknown) => `invalid workdir: expected a non-empty string, got ${shownJson(value)}`,
  stdoutMaxBytes: (value: unknown) => `invalid stdoutMaxBytes: expected a non-negative integer, got ${shownJson(value)}`,
  closed: 'the executor is closed',
  /** Configuration: a sandbox over an executor whose commands run on other hosts, out of this host's reach. */
  noSandboxHost: 'sandbox is configured, but this executor runs commands on other hosts, where this host\'s sandbox cannot confine them',
};

export const runtimeErrors = {
  closed: 'the runtime is closed',
};

/** Longest session id, in characters: it travels in every command's environment (DSH_SESSION_ID). */
export const MAX_SESSION_ID_CHARS = 256;

/** Longest session label, in characters: a name for people, shown in a console's list. */
export const MAX_SESSION_LABEL_CHARS = 200;

export const sessionErrors = {
  id: (value: unknown) =>
    `invalid session id: expected 1 to ${MAX_SESSION_ID_CHARS} characters, none of them control characters, got ${typeof value === 'string' ? shownJson(value) : kindOf(value)}`,
  /** `field` names what differs: `cwd "/a/b"` or `tools ["bash"]`. */
  reopened: (id: string, field: string) =>
    `session ${shownId(id)} is already open with ${field}; close it before opening it with other options, or open it with the same ones`,
  /** What `reopened` names when the working directory differs. */
  reopenedCwd: (cwd: string) => `cwd ${JSON.stringify(cwd)}`,
  /** What `reopened` names when the tool restriction differs (none: every tool). */
  reopenedTools: (tools: readonly string[] | undefined) => (tools === undefined ? 'every tool' : `tools ${JSON.stringify(tools)}`),
  closed: (id: string) => `session ${id} is closed`,
  notAllowed: (name: string) => `tool ${shownJson(name)} is not available to this session`,
  label: (value: unknown) =>
    `invalid session label: expected a string of at most ${MAX_SESSION_LABEL_CHARS} characters, none of them control characters, got ${typeof value === 'string' ? shownJson(value) : kindOf(value)}`,
  cwd: (value: unknown) => `invalid session cwd: expected a non-empty string, got ${shownJson(value)}`,
  tools: (value: unknown) => `invalid session tools: expected an array of tool names, got ${kindOf(value)}`,
  unknownRestriction: (name: unknown) =>
    `invalid session tools: unknown tool ${shownJson(name)} (shellring's tools are bash, job_output, job_list, job_kill, job_input)`,
  unknownTool: (name: unknown) => `unknown tool ${shownJson(name)}`,
  approvalChannel: 'invalid approval channel: expected a function or undefined',
  noSandbox: 'this runtime has no sandbox; create it with the `sandbox` option',
  noDomains: "this runtime's network is not by name; create it with sandbox.network {mode: 'domains', ...}",
  sandboxMode: (mode: unknown, modes: readonly string[]) => `invalid sandbox mode ${JSON.stringify(mode)}: expected one of ${modes.join(', ')}`,
  toolName: (value: unknown) =>
    `invalid tool name: expected a string naming one of this session's tools (see tools/list), got ${shownJson(value)}`,
};

/** A call the runtime cannot take: arguments or call options of the wrong shape. */
export const callErrors = {
  arguments: (value: unknown) => `invalid arguments: expected an object, got ${kindOf(value)}`,
  options: (value: unknown) => `invalid call options: expected an object, got ${kindOf(value)}`,
  signal: (value: unknown) => `invalid signal: expected an AbortSignal, got ${kindOf(value)}`,
  callId: (value: unknown) => `invalid callId: expected a string, got ${shownJson(value)}`,
  watchOutput: (value: unknown) => `invalid watchOutput: expected a function, got ${kindOf(value)}`,
  terminalSize: (value: unknown) =>
    `invalid terminalSize: expected {cols, rows}, whole numbers from 2 to 1000, got ${typeof value === 'object' && value !== null ? JSON.stringify(value) : kindOf(value)}`,
  suspended: (value: unknown) => `invalid suspended: expected a function, got ${kindOf(value)}`,
  context: (value: unknown) => `invalid call context: expected an object, got ${kindOf(value)}`,
  sessionId: (value: unknown) => `invalid call context: sessionId must be a string, got ${shownJson(value)}`,
  /**
   * Arguments the tool does not take: refused rather than ignored, so a misnamed one (`timeout`) never runs the call
   * on a default. `guesses` names the argument each one most likely meant; `known` are the tool's own.
   */
  unknownArguments: (tool: string, names: readonly string[], guesses: ReadonlyMap<string, string>, known: readonly string[]) => {
    const shown = names.slice(0, SHOWN_NAMES).map((name) => (guesses.has(name) ? `${shownJson(name)} (did you mean ${guesses.get(name)}?)` : shownJson(name)));
    const more = names.length > SHOWN_NAMES ? ` and ${names.length - SHOWN_NAMES} more` : '';
    const takes = known.length ? `${tool} takes ${known.join(', ')}` : `${tool} takes no arguments`;
    return `unknown argument${names.length === 1 ? '' : 's'} ${shown.join(', ')}${more}: ${takes}`;
  },
};

/** Unknown argument names an error shows before it counts the rest. */
const SHOWN_NAMES = 5;
