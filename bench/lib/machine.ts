// The facts about the machine a run was taken on, stored with the figures, and a short fingerprint that tells machines
// apart in the README's table.
import { createHash } from 'node:crypto';
import * as os from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  arch: string;
  kernel: string;
  /** Eight hex digits of the CPU model, cores, kernel and memory (see fingerprint()). */
  fingerprint?: string;
  /** Records made before the start load was kept: the 1, 5 and 15 minute load averages when the suite ended. */
  load?: number[];
}

export function machine(): Machine {
  const cpus = os.cpus();
  const facts = {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    kernel: os.release(),
  };
  return { ...facts, fingerprint: fingerprint(facts) };
}

/** What tells two machines apart among those that ran the suites: CPU model, cores, kernel and memory (Node is named
 * beside it, not in it: the same machine with another Node is the same machine). */
export function fingerprint(machine: Pick<Machine, 'cpu' | 'cores' | 'kernel' | 'memoryGiB'>): string {
  const facts = [machine.cpu, machine.cores, machine.kernel, machine.memoryGiB].join('\n');
  return createHash('sha256').update(facts).digest('hex').slice(0, 8);
}
