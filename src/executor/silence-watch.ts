// The watch over a silent command, wherever it runs: once it has printed nothing for SILENCE_MS, looks at what its
// processes wait for (this host's /proc in a supervisor worker, a remote runner's snapshot of its own), each change
// of finding reported (cleared when output resumes). Looks come LOOK_MS apart, then twice as far apart after each
// look that found what the last one did, up to LOOK_MAX_MS; between looks an idle command's watch does not wake, so
// a thousand idle jobs cost next to nothing.
import { loadBinding } from '../native/loader.js';
import { LOOK_MAX_MS, LOOK_MS, SILENCE_MS, type WaitingFinding } from './waiting.js';

/** Checks fall on a shared grid of this many milliseconds: every watch of a thread due in one tick runs in one wake of
 * it, where a thousand watches would otherwise each wake it on a millisecond of its own. */
const TICK_MS = 250;

export type Found = (finding: WaitingFinding | null) => void;

/**
 * `look` reports what it finds through its argument, at once or later (one look at a time); `halted`: a killed
 * command is not looked at. Returns what stops the watch.
 */
export function watchSilence(captureId: number, halted: () => boolean, look: (found: Found) => void, report: Found): () => void {
  const binding = loadBinding();
  const written = () => binding.info(captureId, 0).total + binding.info(captureId, 1).total;
  let bytes = written();
  // Output seen at the last check: the next check comes a second later, to see when it stops.
  let moving = false;
  let nextLook = Date.now() + SILENCE_MS;
  let gap = LOOK_MS;
  let reported = 'null';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  // A standing finding must be cleared within a second of new output; otherwise nothing is due before the next look.
  const schedule = () => {
    if (stopped) return;
    const now = Date.now();
    const due = moving || reported !== 'null' ? now + LOOK_MS : Math.max(now, nextLook);
    timer = setTimeout(check, Math.ceil(due / TICK_MS) * TICK_MS - now);
    timer.unref();
  };
  const change: Found = (finding) => {
    const key = JSON.stringify(finding);
    gap = key === reported ? Math.min(gap * 2, LOOK_MAX_MS) : LOOK_MS;
    nextLook = Date.now() + gap;
    if (key !== reported) {
      reported = key;
      report(finding);
    }
    schedule();
  };
  const check = () => {
    const now = written();
    moving = now !== bytes;
    if (moving) {
      bytes = now;
      nextLook = Date.now() + SILENCE_MS;
      gap = LOOK_MS;
      if (reported !== 'null') {
        reported = 'null';
        report(null);
      }
      return schedule();
    }
    if (Date.now() < nextLook) return schedule();
    if (halted()) return;
    // The answer schedules the next check.
    look(change);
  };

  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
