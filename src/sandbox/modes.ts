// Sandbox modes, from narrowest to widest file-write authority.

export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value);
}

/** True when `requested` grants strictly more than `current`. */
export function isWider(requested: SandboxMode, current: SandboxMode): boolean {
  return SANDBOX_MODES.indexOf(requested) > SANDBOX_MODES.indexOf(current);
}
