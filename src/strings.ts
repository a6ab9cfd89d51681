// Every exact model-facing and error string of the contract, in one place; tests assert them byte for byte.

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

export const markers = {
  truncated: (path: string | undefined) => `[output truncated; full output: ${path ?? '(unavailable)'}]`,
  noOutput: '(no output)',
  stderr: '[stderr]',
  timedOut: (ms: number) => `[timed out after ${ms}ms]`,
  stopped: (reason: string) => `[stopped: ${reason}]`,
  signal: (name: string) => `[killed by signal: ${name}]`,
  exitCode: (code: number | null) => `[exit code: ${code}]`,
  denied: (mode: string) => `[sandbox: file access denied under ${mode} mode]`,
  escalationHint:
    '[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]',
  runnerFailed: (mode: string) =>
    `[sandbox: the sandbox runner itself failed under ${mode} mode — the command did not run; this is a sandbox problem, not a command failure]`,
  dropped: (paths: string[]) =>
    `[some output was dropped from memory; full output: ${paths.length ? paths.join(', ') : '(unavailable)'}]`,
};

export const executorErrors = {
  sandboxUnavailable: (mode: string) =>
    `sandbox mode "${mode}" is requested but no sandbox backend is usable on this host; refusing to run the command unconfined.`,
};
