// Adapts a bash process handle into a job source: settlement facts, kill, and the spill files behind its output.
import { STREAMS, type CaptureBackend } from '../capture/types.js';
import type { ProcessHandle, ProcessOutcome } from '../executor/types.js';
import type { JobSettlement, JobSource } from '../jobs/types.js';
import { jobTexts, markers } from '../contract/index.js';

/** `holdsLeftovers`: the job stays running while processes the command left behind live on, and its kill ends
 * them (a foreground call hands such a job to the session instead of dropping it). */
export function bashJobSource(
  handle: ProcessHandle,
  capture: CaptureBackend,
  escalationAdvertised: boolean,
  holdsLeftovers = false,
): JobSource {
  let killed = false;
  const spillFiles = () =>
    STREAMS.flatMap((stream) => {
      const info = capture.info(handle.captureId, stream);
      return (info.spill === 'active' || info.spill === 'complete') && info.spillPath ? [{ path: info.spillPath, bytes: info.total }] : [];
    });
  // Not async: a command without leftovers settles in the same turn as before, ahead of its caller's next step.
  const settled = handle.done.then((outcome): JobSettlement | Promise<JobSettlement> => {
    const ended = settlement(outcome);
    if (!holdsLeftovers || !outcome.leftover) return ended;
    return handle.gone.then(() => (killed ? { ...ended, state: 'killed' } : ended));
  });
  return {
    captureId: handle.captureId,
    settled,
    kill: () => {
      killed = true;
      handle.kill();
    },
    spillPaths: () => spillFiles().map((file) => file.path),
    spillFiles,
    settledNotices: () => {
      const sandbox = handle.sandboxFacts();
      if (sandbox?.runnerFailed) return [markers.runnerFailed(sandbox.mode)];
      if (!sandbox?.denied) return [];
      return escalationAdvertised ? [markers.denied(sandbox.mode), markers.escalationHint] : [markers.denied(sandbox.mode)];
    },
    release: () => handle.release(),
    waiting: () => handle.waitingFor(),
  };
}

export function settlement(outcome: ProcessOutcome): JobSettlement {
  if (outcome.error !== undefined) return { state: 'failed', detail: outcome.error };
  const detail =
    outcome.signal !== null
      ? jobTexts.endedBySignal(outcome.signal)
      : outcome.exitCode !== null
        ? jobTexts.endedWithCode(outcome.exitCode)
        : jobTexts.killedBeforeExit;
  return { state: outcome.status === 'killed' ? 'killed' : 'completed', detail };
}
