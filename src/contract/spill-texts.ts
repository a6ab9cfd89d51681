// Why a truncated stream has no spill file: the line under `[output truncated; full output: (unavailable)]`.

export const spillUnavailable = {
  /** The marker line itself. */
  marker: (reason: string) => `[spill unavailable: ${reason}]`,
  noDirectory: (problem: string) => `no spill directory could be made (${problem})`,
  fileCap: (cap: number) => `the stream passed ${cap} bytes, the most one spill file may hold (maxSpillBytes)`,
  quota: (cap: number) =>
    `the stream passed ${cap} bytes, what was left of this session's spill quota (sessionSpillQuota); files of finished calls count until the session closes`,
  failed: 'the spill file could not be written or kept (disk full, an I/O error, or the file was removed while being written)',
};
