// The watch over a silent command, wherever it runs: once it has printed nothing for SILENCE_MS, a look each LOOK_MS
// at what its processes wait for (this host's /proc in a supervisor worker, a remote runner's snapshot of its own),
// and each change of finding reported (cleared when output resumes).
import { loadBinding } from '../native/loader.js';
import { LOOK_MS, SILENCE_MS, type WaitingFinding } from './waiting.js';

const binding = loadBinding();

export type Found = (finding: WaitingFinding | null) => void;

/** `look` reports what it finds through its argument, at once or later; `halted`: a killed command is not looked at. */
export function watchSilence(captureId: number, halted: () => boolean, look: (found: Found) => void, report: Found): NodeJS.Timeout {
  const written = () => binding.info(captureId, 0).total + binding.info(captureId, 1).total;
  let bytes = written();
  let quietSince = Date.now();
  let reported = 'null';
  const change: Found = (finding) => {
    const key = JSON.stringify(finding);
    if (key === reported) return;
    reported = key;
    report(finding);
  };
  const timer = setInterval(() => {
    const now = written();
    if (now !== bytes) {
      bytes = now;
      quietSince = Date.now();
      return change(null);
    }
    if (Date.now() - quietSince < SILENCE_MS || halted()) return;
    look(change);
  }, LOOK_MS);
  timer.unref();
  return timer;
}
