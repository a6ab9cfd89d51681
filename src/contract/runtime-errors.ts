// Errors of the layers under the tools (environment registry, executor, sandbox, sessions) that reach a caller or a model.
import { bashArgErrors } from './bash-texts.js';

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
  timeoutMs: (value: unknown) => `invalid timeoutMs: expected a positive number, got ${JSON.stringify(value)}`,
  workdir: (value: unknown) => `invalid workdir: expected a non-empty string, got ${JSON.stringify(value)}`,
  stdoutMaxBytes: (value: unknown) => `invalid stdoutMaxBytes: expected a non-negative integer, got ${JSON.stringify(value)}`,
  closed: 'the executor is closed',
};

export const sessionErrors = {
  closed: (id: string) => `session ${id} is closed`,
  unknownTool: (name: string) => `unknown tool ${JSON.stringify(name)}`,
};
