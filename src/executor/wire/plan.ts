// One command's confinement as the runner takes it: the one TypeScript type of the plan and its fields in the request
// record, in the order and kinds of crates/wire/src/plan.rs (test/executor/wire.test.ts holds the two together).

/** The backends a sandbox may be configured with. */
export const SANDBOX_BACKENDS = ['landlock', 'bubblewrap'] as const;
/** What confines a command: nothing, Landlock (through shellring-runner), or bubblewrap. */
export const BACKENDS = ['none', ...SANDBOX_BACKENDS] as const;
export type Backend = (typeof BACKENDS)[number];
export const NETWORKS = ['allow', 'deny', 'deny-except-unix', 'domains'] as const;
export const ISOLATIONS = ['auto', 'seccomp'] as const;
export const VIEWS = ['host', 'session'] as const;

export interface ConfinementPlan {
  backend: Backend;
  /** The bubblewrap executable: set with backend 'bubblewrap' only. */
  bwrapPath?: string;
  /** 'deny-except-unix': the network denied, unix sockets still allowed (every named one the command can see).
   * 'domains': a network namespace with only loopback, whose listener the session sandbox hands to the host's proxy. */
  network: (typeof NETWORKS)[number];
  /** How Landlock guards metadata: a mount namespace, else seccomp ('auto'), or seccomp only. */
  isolation: (typeof ISOLATIONS)[number];
  /** What the command may read: the host's files, or the session view. */
  view: (typeof VIEWS)[number];
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

/** How a field is written: one text field, a number or an empty field, a count then that many fields, NAME=value
 * pairs counted the same way, or the marked rest of the record. */
export type FieldKind = 'text' | 'count' | 'list' | 'pairs' | 'rest';

/** The plan's fields in the record, the command last (a session sandbox's is empty). */
export const PLAN_FIELDS = [
  ['plan.backend', 'text'],
  ['plan.bwrapPath', 'text'],
  ['plan.network', 'text'],
  ['plan.isolation', 'text'],
  ['plan.view', 'text'],
  ['plan.nproc', 'count'],
  ['plan.writable', 'list'],
  ['plan.hidden', 'list'],
  ['plan.readable', 'list'],
  ['plan.denied', 'list'],
  ['plan.cgroups', 'list'],
  ['plan.cgroupLimits', 'list'],
  ['command', 'text'],
] as const satisfies readonly (readonly [string, FieldKind])[];

type PlanKey = Exclude<keyof ConfinementPlan, 'bwrapPath'>;

/** The plan's fields as text, in PLAN_FIELDS's order, with `command` last. */
export function planFields(plan: ConfinementPlan, command: string): string[] {
  const fields: string[] = [];
  for (const [name, kind] of PLAN_FIELDS) {
    if (name === 'command') fields.push(command);
    else if (name === 'plan.bwrapPath') fields.push(plan.backend === 'bubblewrap' ? (plan.bwrapPath ?? '') : '');
    else {
      const value = plan[name.slice('plan.'.length) as PlanKey];
      if (kind === 'list') fields.push(String((value as readonly string[]).length), ...(value as readonly string[]));
      else if (kind === 'count') fields.push(value === null ? '' : String(value));
      else fields.push(String(value));
    }
  }
  return fields;
}
