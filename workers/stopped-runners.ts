// Wakes runners a command stopped (SIGSTOP to its parent) once their bash has ended: a stopped runner cannot report
// the end, and the call would wait until someone sent SIGCONT. One timer per worker looks at commands whose output
// pipes reached end-of-file without an end report, and at commands in their first seconds, when a command can stop
// its runner before the runner lets go of the pipes (then only an ended child tells).
import { readFileSync } from 'node:fs';
import { loadBinding } from '../src/native/loader.js';
import { signal } from '../src/executor/sweep.js';

const binding = loadBinding();
/** How often waiting commands are looked at. */
const CHECK_MS = 250;
/** How long a command is looked at whatever its pipes say: the runner hands its copies of them on at the start. */
const YOUNG_MS = 5000;

interface Waiting {
  captureId: number;
  runnerPid: number;
  since: number;
}

const waiting = new Set<Waiting>();
let timer: NodeJS.Timeout | undefined;

/** Follows a started command until `done` is called (its end was reported, or it is gone). */
export function watchStopped(captureId: number, runnerPid: number): () => void {
  const entry = { captureId, runnerPid, since: Date.now() };
  waiting.add(entry);
  if (!timer) {
    timer = setInterval(check, CHECK_MS);
    timer.unref();
  }
  return () => {
    waiting.delete(entry);
    if (waiting.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

function check(): void {
  const now = Date.now();
  for (const { captureId, runnerPid, since } of waiting) {
    const ended = readersDone(captureId);
    if (!ended && now - since > YOUNG_MS) continue;
    if (!isStopped(runnerPid)) continue;
    if (ended || hasEndedChild(runnerPid)) signal(runnerPid, 'SIGCONT');
  }
}

/** True when a child of the process has ended and waits to be reaped (bash, or an orphan the runner adopted). */
function hasEndedChild(pid: number): boolean {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').split(' ').filter(Boolean);
    return children.some((child) => procState(Number(child)) === 'Z');
  } catch {
    return false;
  }
}

function readersDone(captureId: number): boolean {
  try {
    return binding.readersDone(captureId);
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
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}
