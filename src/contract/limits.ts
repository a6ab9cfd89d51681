// The configured figures a model-facing text may name. Every number the model reads is rendered from these, taken
// from the resolved configuration: an operator's 30000 is what the model is told, never a default written in a text.

/** A command's figures (the executor's configuration). */
export interface CommandLimits {
  /** The timeout of a call that gives none (`executor.timeoutMs`). */
  timeoutMs: number;
  /** The largest timeout a call may ask for (`executor.maxTimeoutMs`). */
  maxTimeoutMs: number;
  /** The tail each stream keeps in memory, what a result shows (`executor.maxOutputBytes`). */
  maxOutputBytes: number;
}

/** The job tools' figures (the job registry's configuration). */
export interface JobLimits {
  /** Most bytes one job_output read returns (`jobs.readBytes`). */
  readBytes: number;
  /** How long a `wait: true` read waits when it names no timeout_ms (`jobs.waitMs`). */
  waitMs: number;
  /** The longest wait one read may ask for (`jobs.maxWaitMs`). */
  maxWaitMs: number;
  /** Finished jobs kept per session (`jobs.maxSettledPerOwner`). */
  keepSettled: number;
}
