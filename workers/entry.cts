// Piscina's task entry, in CommonJS: Piscina first require()s its file, and on Node 20 a require() of an ES module
// can abort the process when two loads of it race (its preload and the first task). The host is imported.
import type { AttachTask } from '../src/executor/protocol.js';

let attach: Promise<(task: AttachTask) => Promise<void>> | undefined;

export = async function run(task: AttachTask): Promise<void> {
  attach ??= import('./host.js').then((module) => module.default);
  return (await attach)(task);
};
