// Reading a /proc file into one buffer kept for the next: readFileSync allocates 64 KiB for every file whose size it
// cannot know (all of /proc), which a worker reading thousands of small /proc files a second leaves to the garbage
// collector, resident until it runs. Called in the supervisor workers only (the waiting look, the sweep, the
// stopped-runner watch), never on the main thread: /proc is a kernel table, never a disk, but a read still waits.
import { closeSync, openSync, readSync } from 'node:fs';

let scratch = Buffer.allocUnsafe(4096);

/** The whole file as latin1 text; throws as readFileSync does (ENOENT, ESRCH) when the process is gone. */
export function readProcText(path: string): string {
  // Synchronous by design, in a supervisor worker only, never the main thread (see above): a /proc file, never a disk.
  const fd = openSync(path, 'r');
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger);
        scratch = bigger;
      }
      // A short read is not the end of a /proc file (seq files hand out a page at a time): read until 0.
      const n = readSync(fd, scratch, length, scratch.length - length, null);
      if (n === 0) return scratch.toString('latin1', 0, length);
      length += n;
    }
  } finally {
    closeSync(fd);
  }
}
