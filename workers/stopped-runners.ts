// Wakes runners a command stopped (SIGSTOP to its parent) once their bash has ended: a stopped runner cannot report
// the end, and the call would wait until someone sent SIGCONT. One timer per worker looks at commands whose output
// pipes reached end-of-file without an end report, and at commands in their first seconds, when a command can stop
// its runner before the runner lets go of the pipes (then only an ended child tells). A command past both is not
// looked at: a thousand idle jobs cost no timer work.
import { readProcText } from '../src/executor/proc-text.js';
import { signal } from '../src/executor/sweep.js';

/** How often commands whose output ended are looked at, and how soon a new command first is. */
const CHECK_MS = 250;
/** How long a command is looked at whatever its pipes say: the runner hands its copies of them on at the start. Looks
 * at a young command come twice as far apart each time (250 ms, 500 ms, 1 s, 2 s, 4 s). */
const YOUNG_MS = 5000;

interface Watched {
  runnerPid: number;
  since: number;
  /** Its output pipes reached end-of-file. */
  ended: boolean;
  /** When a young command is next looked at, and the gap after that. */
  next: number;
  gap: number;
}

const watched = new Set<Watched>();
let timer: NodeJS.Timeout | undefined;

/** Follows a started command until the returned function is called (its end was reported, or it is gone);
 * `outputEnded` settles when both its output pipes reached end-of-file. */
export function watchStopped(runnerPid: number, outputEnded: Promise<void>): () => void {
  const now = Date.now();
  const entry: Watched = { runnerPid, since: now, ended: false, next: now + CHECK_MS, gap: CHECK_MS };
  let done = false;
  follow(entry);
  outputEnded.then(
    () => {
      if (done) return;
      entry.ended = true;
      follow(entry);
    },
    () => {},
  );
  return () => {
    done = true;
    unfollow(entry);
  };
}

function follow(entry: Watched): void {
  watched.add(entry);
  if (!timer) {
    timer = setInterval(check, CHECK_MS);
    timer.unref();
  }
}

function unfollow(entry: Watched): void {
  watched.delete(entry);
  if (watched.size === 0 && timer) {
    clearInterval(timer);
    timer = undefined;
  }
}

function check(): void {
  const now = Date.now();
  for (const entry of watched) {
    if (!entry.ended) {
      // Past its first seconds with its output still open: looked at again once its output ends.
      if (now - entry.since > YOUNG_MS) {
        unfollow(entry);
        continue;
      }
      if (now < entry.next) continue;
      entry.gap *= 2;
      entry.next = now + entry.gap;
    }
    if (!isStopped(entry.runnerPid)) continue;
    if (entry.ended || hasEndedChild(entry.runnerPid)) signal(entry.runnerPid, 'SIGCONT');
  }
}

/** True when a child of the process has ended and waits to be reaped (bash, or an orphan the runner adopted). */
function hasEndedChild(pid: number): boolean {
  try {
    const children = readProcText(`/proc/${pid}/task/${pid}/children`).split(' ').filter(Boolean);
    return children.some((child) => procState(Number(child)) === 'Z');
  } catch {
    return false;
  }
}

/** True when the process is stopped (state T, or t under a tracer). */
export function isStopped(pid: number): boolean {
  return /^[Tt]$/.test(procState(pid) ?? '');
}

/** True when the process has ended: a zombie not yet reaped, or no longer there at all. */
export function hasEnded(pid: number): boolean {
  const state = procState(pid);
  return state === undefined || state === 'Z' || state === 'X';
}

/** The one-letter state from /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function procState(pid: number): string | undefined {
  try {
    const stat = readProcText(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}
