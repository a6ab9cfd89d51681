// A supervisor worker's host: supervises every command the main thread sends on one port, all at once, driven by
// events (process exits, status lines, timers); there is no per-command Piscina task and no per-worker cap.
import type { AttachTask, HostEvent, HostRequest, SupervisorResult } from '../src/executor/protocol.js';
import { ForkServer } from './fork-server.js';
import { Supervised } from './supervisor.js';

/** Attaches a host to this worker and returns once the pool says every worker has one (so each gets its own). */
export default function attach({ port }: AttachTask): Promise<void> {
  const running = new Map<number, Supervised>();
  const servers = new Map<string, ForkServer>();
  const send = (event: HostEvent) => port.postMessage(event);
  return new Promise((resolve) => {
    port.on('message', (request: HostRequest) => {
      switch (request.type) {
        case 'start':
          return start(request.id, request.task);
        case 'kill':
          return running.get(request.id)?.kill(request.cause);
        case 'release':
          return running.get(request.id)?.release();
        case 'go':
          return resolve();
      }
    });
    send({ type: 'ready' });
  });

  function start(id: number, task: Extract<HostRequest, { type: 'start' }>['task']): void {
    let server = servers.get(task.runnerPath);
    if (!server) servers.set(task.runnerPath, (server = new ForkServer(task.runnerPath)));
    const run = new Supervised(task, server, (finding) => send({ type: 'waiting', id, finding }));
    running.set(id, run);
    const control = run.control();
    const settled = run.settled.catch(
      (error: unknown): SupervisorResult => ({ kind: 'failed', error: message(error), runnerFailed: false }),
    );
    const spawned = control.spawned().then((live) => {
      send({ type: 'spawned', id, live });
      return live;
    });
    const reported = settled.then((result) => send({ type: 'result', id, result }));
    // Gone comes last (the main thread forgets the command on it): after the result, and after the runner exited
    // when bash ran.
    const runnerGone = spawned.then((live) => (live ? control.runnerExited() : undefined));
    void Promise.all([reported, runnerGone]).then(() => {
      running.delete(id);
      send({ type: 'gone', id });
    });
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
