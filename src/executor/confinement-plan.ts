// One command's confinement as the runner takes it: the one TypeScript type of the plan and its one encoding, the
// fields of the request frame that crates/runner/src/plan.rs decodes straight into its own `Plan`.

/** The backends a sandbox may be configured with. */
export const SANDBOX_BACKENDS = ['landlock', 'bubblewrap'] as const;
/** What confines a command: nothing, Landlock (through shellring-runner), or bubblewrap. */
export const BACKENDS = ['none', ...SANDBOX_BACKENDS] as const;
export type Backend = (typeof BACKENDS)[number];

export interface ConfinementPlan {
  backend: Backend;
  /** The bubblewrap executable: set with backend 'bubblewrap' only. */
  bwrapPath?: string;
  /** 'deny-except-unix': the network denied, unix sockets still allowed (every named one the command can see). */
  network: 'allow' | 'deny' | 'deny-except-unix';
  /** How Landlock guards metadata: a mount namespace, else seccomp ('auto'), or seccomp only. */
  isolation: 'auto' | 'seccomp';
  /** What the command may read: the host's files, or the session view. */
  view: 'host' | 'session';
  /** Process-count limit of a command run in its own user namespace (null: none). */
  nproc: number | null;
  writable: readonly string[];
  /** Directories shown empty (the runtime's state, other sessions' files). */
  hidden: readonly string[];
  /** Read-only paths: in the session view its only data. */
  readable: readonly string[];
  /** Paths whose content the command never sees. */
  denied: readonly string[];
  /** Cgroup directories (one per hierarchy) the command joins, made when missing. */
  cgroups: readonly string[];
  /** `NAME=VALUE` control writes for those cgroups (`?NAME=VALUE`: where the kernel accepts it). */
  cgroupLimits: readonly string[];
}

/** A command run with the runner's own authority. */
export const UNCONFINED: ConfinementPlan = {
  backend: 'none',
  network: 'allow',
  isolation: 'auto',
  view: 'host',
  nproc: null,
  writable: [],
  hidden: [],
  readable: [],
  denied: [],
  cgroups: [],
  cgroupLimits: [],
};

/** The plan's fields in the frame, in plan.rs's order, the command last (empty for a session sandbox). */
export function encodePlan(plan: ConfinementPlan, command: string): string[] {
  const fields = [
    plan.backend,
    plan.backend === 'bubblewrap' ? (plan.bwrapPath ?? '') : '',
    plan.network,
    plan.isolation,
    plan.view,
    plan.nproc === null ? '' : String(plan.nproc),
  ];
  for (const list of [plan.writable, plan.hidden, plan.readable, plan.denied, plan.cgroups, plan.cgroupLimits]) {
    fields.push(String(list.length), ...list);
  }
  fields.push(command);
  return fields;
}
