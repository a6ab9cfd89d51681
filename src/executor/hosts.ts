// The supervisor workers as hosts: each Piscina worker runs one long-lived host that supervises many commands at
// once; a command goes to the host with the fewest live commands and starts at once (no queue, no per-worker cap).
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { HostEvent, HostRequest, KillCause, LiveCommand, SupervisorResult, SupervisorTask } from './protocol.js';

/** What a host tells one command's launch. */
export interface LaunchListener {
  spawned(live: LiveCommand | null): void;
  result(result: SupervisorResult): void;
  gone(): void;
  /** The worker died with the command in it. */
  crashed(error: string): void;
}

class Host {
  readonly port: MessagePort;
  readonly listeners = new Map<number, LaunchListener>();
  readonly ready: Promise<void>;
  #dead = false;

  constructor(port: MessagePort, onDead: (host: Host) => void) {
    this.port = port;
    let markReady!: () => void;
    this.ready = new Promise((resolve) => (markReady = resolve));
    port.on('message', (event: HostEvent) => {
      if (event.type === 'ready') return markReady();
      const listener = this.listeners.get(event.id);
      if (!listener) return;
      if (event.type === 'spawned') listener.spawned(event.live);
      else if (event.type === 'result') listener.result(event.result);
      else this.#forget(event.id, listener).gone();
    });
    // The worker ended (crashed or terminated): its port closes with it.
    port.on('close', () => {
      if (this.#dead) return;
      this.#dead = true;
      onDead(this);
      for (const [id, listener] of this.listeners) this.#forget(id, listener).crashed('the worker exited');
    });
    port.unref();
  }

  get dead(): boolean {
    return this.#dead;
  }

  send(request: HostRequest): void {
    if (!this.#dead) this.port.postMessage(request);
  }

  add(id: number, listener: LaunchListener): void {
    // While a host supervises anything, its port keeps the host process alive (a pending result is no handle).
    if (this.listeners.size === 0) this.port.ref();
    this.listeners.set(id, listener);
  }

  #forget(id: number, listener: LaunchListener): LaunchListener {
    this.listeners.delete(id);
    if (this.listeners.size === 0) this.port.unref();
    return listener;
  }
}

export class SupervisorHosts {
  readonly #pool: Piscina;
  readonly #hosts = new Set<Host>();
  #nextId = 1;
  #closed = false;

  constructor(filename: string, threads: number) {
    this.#pool = new Piscina({
      filename,
      minThreads: threads,
      maxThreads: threads,
      // One attach task per worker at a time, so the first `threads` attaches land on distinct workers.
      concurrentTasksPerWorker: 1,
      // 'sync' would freeze an idle worker's loop; hosts wait on timers and pipes.
      atomics: 'disabled',
      idleTimeout: Infinity,
    });
    const hosts = Array.from({ length: threads }, () => this.#attach());
    // Each attach task holds its worker until every host is ready, then all return together.
    void Promise.all(hosts.map((host) => host.ready)).then(() => hosts.forEach((host) => host.send({ type: 'go' })));
  }

  /** A replacement host (after a worker died): it may share a worker with another host, which is harmless. */
  #replace(): Host {
    const host = this.#attach();
    void host.ready.then(() => host.send({ type: 'go' }));
    return host;
  }

  /** Sends a command to the least-loaded host; it starts at once. Returns the id for kill/release. */
  start(task: SupervisorTask, listener: LaunchListener): { kill(cause: KillCause): void; release(): void } {
    const host = this.#leastLoaded();
    const id = this.#nextId++;
    host.add(id, listener);
    host.send({ type: 'start', id, task });
    return {
      kill: (cause) => host.send({ type: 'kill', id, cause }),
      release: () => host.send({ type: 'release', id }),
    };
  }

  /** The workers' mean event-loop utilization since they started (0..1): how busy supervision kept them. */
  get utilization(): number {
    const threads = this.#pool.threads;
    if (threads.length === 0) return 0;
    let sum = 0;
    for (const thread of threads) sum += thread.performance.eventLoopUtilization().utilization;
    return sum / threads.length;
  }

  /** The worker threads, for tests that must crash one. */
  get threads(): readonly import('node:worker_threads').Worker[] {
    return this.#pool.threads;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const host of this.#hosts) host.port.close();
    await this.#pool.destroy();
  }

  #leastLoaded(): Host {
    let best: Host | undefined;
    for (const host of this.#hosts) if (!best || host.listeners.size < best.listeners.size) best = host;
    return best ?? this.#replace();
  }

  #attach(): Host {
    const { port1, port2 } = new MessageChannel();
    const host = new Host(port1, (dead) => {
      this.#hosts.delete(dead);
      // Piscina replaces the dead worker; a new host attaches to whichever worker takes the task.
      if (!this.#closed) this.#replace();
    });
    this.#hosts.add(host);
    this.#pool.run({ port: port2 }, { transferList: [port2] as never }).catch(() => {});
    return host;
  }
}
