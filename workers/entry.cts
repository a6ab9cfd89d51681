// Piscina's task entry, in CommonJS: Piscina first require()s its file, and on Node 20 a require() of an ES module
// can abort the process when two loads of it race (its preload and the first task). The supervisor is imported.
import type { SupervisorResult, SupervisorTask } from '../src/executor/protocol.js';

let supervise: Promise<(task: SupervisorTask) => Promise<SupervisorResult>> | undefined;

export = async function run(task: SupervisorTask): Promise<SupervisorResult> {
  supervise ??= import('./supervisor.js').then((module) => module.default);
  return (await supervise)(task);
};
