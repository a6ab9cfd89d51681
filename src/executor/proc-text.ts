// Reading a /proc file whole in one call into the native addon: through `fs` a file costs four calls into Node
// (open, two reads, close) and readFileSync a 64 KiB buffer left to the collector, where the supervisor workers read
// thousands of small /proc files a second. Called in the supervisor workers only (the waiting look, the sweep, the
// stopped-runner watch), never on the main thread: /proc is a kernel table, never a disk, but a read still waits.
import { getSystemErrorName } from 'node:util';
import { supervisionErrors } from '../contract/index.js';
import { loadBinding } from '../native/loader.js';

/** The whole file as latin1 text; throws as readFileSync does (`code` ENOENT, ESRCH ...) when it cannot be read. */
export function readProcText(path: string): string {
  const text = loadBinding().readProcText(path);
  if (typeof text === 'string') return text;
  const code = getSystemErrorName(-text);
  throw Object.assign(new Error(supervisionErrors.procUnreadable(code, path)), { code, errno: -text, path });
}
