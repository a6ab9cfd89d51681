// The facts about the machine a run was taken on, stored with the figures.
import * as os from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  arch: string;
  kernel: string;
  /** 1, 5 and 15 minute load averages when the run started: how busy the shared machine was. */
  load: number[];
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    kernel: os.release(),
    load: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
