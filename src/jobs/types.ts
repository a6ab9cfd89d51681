// The job runtime's vocabulary: states, sources that feed a job, and what observers see.
import type { RingRead } from '../capture/types.js';
import type { TermScreen, WaitingFinding } from '../contract/index.js';

export type JobState = 'running' | 'stopping' | 'completed' | 'killed' | 'failed';

/** How a job ended, as its source reports it. */
export interface JobSettlement {
  state: 'completed' | 'killed' | 'failed';
  /** `exit code: <n>`, `signal: <SIG>`, `killed before exit`, or a failure text. */
  detail: string;
  /** A command's exit code, or the signal that ended it (null when the other one says). */
  exitCode?: number | null;
  signal?: string | null;
}

/** A bash job's controls beyond a kill: an interrupt, and for a job on a terminal its input and screen. */
export interface JobTerminal {
  /** The command runs on a terminal (started with `tty`). */
  tty: boolean;
  input(bytes: Buffer): void;
  interrupt(): void;
  /** The terminal takes this size (the program gets SIGWINCH); nothing without a terminal or once ended. */
  resize(size: { cols: number; rows: number }): void;
  screen(timeoutMs: number): Promise<TermScreen | undefined>;
}

/** What runs behind a job: a process handle adapted by the tool that started it. */
export interface JobSource {
  /** The capture whose ring holds the job's output. */
  captureId: number;
  /** Settles once; never rejects. */
  settled: Promise<JobSettlement>;
  kill(): void;
  /** Spill files that hold the whole output of each stream, where complete or still being written. */
  spillPaths(): string[];
  /** The same files with the bytes each holds now, for a read that skipped output to name where it is. */
  spillFiles?(): { path: string; bytes: number }[];
  /** Extra notice lines for a read once the job has settled (sandbox facts). */
  settledNotices?(): string[];
  /** Frees what the source holds (its capture). */
  release(): void;
  /** What the job's silent command waits for, as last found. */
  waiting?(): WaitingFinding | undefined;
  /** A bash job's interrupt, input and screen. */
  terminal?: JobTerminal;
}

export interface JobInfo {
  id: string;
  kind: string;
  /** What job_list and notices name it by (a bash job: its command, cut to one short line). */
  label: string;
  /** What a UI card shows, when the starter gave one (a bash job: the call's description). */
  description?: string;
  ownerId: string;
  state: JobState;
  detail?: string;
  killReason?: string;
  startedAt: number;
  settledAt?: number;
  /** A foreground call is still waiting on it. */
  foreground: boolean;
  /** The tool call that started it, so a view can put its output on that call's card. */
  callId?: string;
  /** While running: what its silent command waits for (input nobody can type, connections), as last found. */
  waiting?: WaitingFinding;
  /** The sandbox mode of an approved one-shot escalation its command runs under (it lasts as long as the command). */
  escalation?: string;
  /** Once settled, a command's exit code, or the signal that ended it (null when the other one says). */
  exitCode?: number | null;
  signal?: string | null;
}

export type JobEvent =
  | { type: 'registered'; job: JobInfo }
  | { type: 'progress'; job: JobInfo; bytes: number }
  | { type: 'output'; jobId: string; total: number }
  | { type: 'stopping'; job: JobInfo }
  | { type: 'settled'; job: JobInfo }
  | { type: 'removed'; jobId: string; ownerId: string };

export type FollowRead = RingRead;
