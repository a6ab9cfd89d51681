// A supervisor worker's host: supervises every command the main thread sends on one port, all at once, driven by
// events (process exits, status lines, timers); there is no per-command Piscina task and no per-worker cap.
import type { AttachTask, HostEvent, HostRequest, SupervisorResult } from '../src/executor/protocol.js';
import { ForkServer, type Launcher } from './fork-server.js';
import { SessionServer } from './session-server.js';
import { Supervised } from './supervisor.js';
import { clearCgroups } from '../src/executor/cgroup-sweep.js';

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
        case 'end':
          return running.get(request.id)?.end();
        case 'control':
          return running.get(request.id)?.send(request.line);
        case 'clear-cgroups':
          return void clearCgroups(request.dirs).then(() => send({ type: 'gone', id: request.id }));
        case 'go':
          return resolve();
      }
    });
    send({ type: 'ready' });
  });

  function start(id: number, task: Extract<HostRequest, { type: 'start' }>['task']): void {
    let server: Launcher | undefined = servers.get(task.runnerPath);
    if (task.serverSocket !== undefined) server = new SessionServer(task.serverSocket);
    else if (!server) servers.set(task.runnerPath, (server = new ForkServer(task.runnerPath)));
    const run = new Supervised(task, server, {
      waiting: (finding) => send({ type: 'waiting', id, finding }),
      deadline: () => send({ type: 'deadline', id }),
      screen: (screen) => send({ type: 'screen', id, screen }),
    });
    running.set(id, run);
    const control = run.control();
    const settled = run.settled.catch(
      (error: unknown): SupervisorResult => ({ kind: 'failed', error: message(error), runnerFailed: false }),
    );
    // Gone comes last (the main thread forgets the command on it): after the result, and after the runner exited
    // when bash ran. A runner usually exits as it reports bash's end, before the output is drained: then the result
    // says gone too, and the main thread is woken once per command, not twice.
    let ended = false;
    const runnerGone = control.spawned().then((live) => (live ? control.runnerExited() : undefined));
    void runnerGone.then(() => (ended = true));
    void settled.then((result) => {
      if (ended) {
        running.delete(id);
        return send({ type: 'result', id, result, gone: true });
      }
      send({ type: 'result', id, result });
      void runnerGone.then(() => {
        running.delete(id);
        send({ type: 'gone', id });
      });
    });
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
