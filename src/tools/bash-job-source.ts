// Adapts a bash process handle into a job source: settlement facts, kill, and the spill files behind its output.
import { STREAMS, type CaptureBackend } from '../capture/types.js';
import type { ProcessHandle, ProcessOutcome } from '../executor/types.js';
import type { JobSettlement, JobSource } from '../jobs/types.js';
import { jobTexts, markers, sandboxLines, type NetworkBlock } from '../contract/index.js';

/** How a job's sandbox facts are told: whether the retry is offered, and what the session can read. */
export interface SandboxTelling {
  escalationAdvertised: boolean;
  readable?: string;
  /** Network by name: the connections refused since the job started, asked for once it settled. */
  networkBlocked?: () => NetworkBlock[] | undefined;
}

/** `holdsLeftovers`: the job stays running while processes the command left behind live on, and its kill ends
 * them (a foreground call hands such a job to the session instead of dropping it). */
export function bashJobSource(handle: ProcessHandle, capture: CaptureBackend, telling: SandboxTelling, holdsLeftovers = false): JobSource {
  let killed = false;
  /** Processes the command left that its sandbox ended with it, told with its settled read. */
  let ended: number | undefined;
  /** Refused connections, as they stood when it settled. */
  let blocked: NetworkBlock[] | undefined;
  const spillFiles = () =>
    STREAMS.flatMap((stream) => {
      const info = capture.info(handle.captureId, stream);
      return (info.spill === 'active' || info.spill === 'complete') && info.spillPath ? [{ path: info.spillPath, bytes: info.total }] : [];
    });
  // Not async: a command without leftovers settles in the same turn as before, ahead of its caller's next step.
  const settled = handle.done.then((outcome): JobSettlement | Promise<JobSettlement> => {
    ended = outcome.ended;
    blocked = telling.networkBlocked?.();
    const settledWith = settlement(outcome);
    if (!holdsLeftovers || !outcome.leftover) return settledWith;
    return handle.gone.then(() => (killed ? { ...settledWith, state: 'killed' } : settledWith));
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
      const lines = sandboxLines(sandbox, telling.readable, telling.escalationAdvertised);
      for (const b of blocked ?? []) lines.push(markers.networkBlocked(b.host, b.port, b.reason));
      return ended ? [...lines, markers.leftoverEnded(ended, true)] : lines;
    },
    release: () => handle.release(),
    waiting: () => handle.waitingFor(),
    terminal: {
      tty: handle.terminal,
      input: (bytes) => handle.input(bytes),
      interrupt: () => handle.interrupt(),
      resize: (size) => handle.resize(size),
      screen: (timeoutMs) => handle.screen(timeoutMs),
    },
  };
}

export function settlement(outcome: ProcessOutcome): JobSettlement {
  if (outcome.error !== undefined) return { state: 'failed', detail: outcome.error };
  if (outcome.supervisionEnded) return { state: 'failed', detail: jobTexts.supervisionEnded };
  const detail =
    outcome.signal !== null
      ? jobTexts.endedBySignal(outcome.signal)
      : outcome.exitCode !== null
        ? jobTexts.endedWithCode(outcome.exitCode)
        : jobTexts.killedBeforeExit;
  return { state: outcome.status === 'killed' ? 'killed' : 'completed', detail, exitCode: outcome.exitCode, signal: outcome.signal };
}
