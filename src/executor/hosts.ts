// The supervisor workers as hosts: each Piscina worker runs one long-lived host that supervises many commands at
// once; a command goes to the host with the fewest live commands and starts at once (no queue, no per-worker cap).
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { supervisionErrors } from '../contract/index.js';
import type { HostEvent, HostRequest, KillCause, SupervisorResult, SupervisorTask } from './protocol.js';
import type { WaitingFinding } from './waiting.js';
import type { TermScreen } from './wire/term.js';

/** What a host tells one command's launch. */
export interface LaunchListener {
  result(result: SupervisorResult): void;
  gone(): void;
  /** What the silent command waits for, as the supervisor last found it (null: not known to wait). */
  waiting(finding: WaitingFinding | null): void;
  /** The command reached its deadline still running (reported, not killed). */
  deadline(): void;
  /** The worker died with the command in it. */
  crashed(error: string): void;
  /** A terminal job's screen, as its runner answered. */
  screen(screen: TermScreen): void;
}

/** What the main thread may ask of one command's supervisor; signals and sweeps are the supervisor's alone. */
export interface LaunchControl {
  kill(cause: KillCause): void;
  release(): void;
  end(): void;
  /** A terminal line for the command's runner (wire/control.ts). */
  send(line: string): void;
}

/** Requests for one command, as the host that carries it. */
type Entry = { listener: LaunchListener; requests: HostRequest[] };

class Host {
  readonly port: MessagePort;
  readonly entries = new Map<number, Entry>();
  readonly ready: Promise<void>;
  /** Until the worker says it is ready, requests wait here: a host that dies before then ran none of them, so they
   * can move to another host instead of failing. */
  #waiting = true;
  #dead = false;

  constructor(port: MessagePort, onDead: (host: Host, unstarted: Map<number, Entry>) => void) {
    this.port = port;
    let markReady!: () => void;
    this.ready = new Promise((resolve) => (markReady = resolve));
    port.on('message', (event: HostEvent) => {
      if (event.type === 'ready') {
        this.#waiting = false;
        for (const entry of this.entries.values()) for (const request of entry.requests.splice(0)) port.postMessage(request);
        return markReady();
      }
      const entry = this.entries.get(event.id);
      if (!entry) return;
      if (event.type === 'result') {
        entry.listener.result(event.result);
        if (event.gone) this.#forget(event.id).listener.gone();
      } else if (event.type === 'waiting') entry.listener.waiting(event.finding);
      else if (event.type === 'deadline') entry.listener.deadline();
      else if (event.type === 'screen') entry.listener.screen(event.screen);
      else this.#forget(event.id).listener.gone();
    });
    // The worker ended (crashed or terminated): its port closes with it.
    port.on('close', () => {
      if (this.#dead) return;
      this.#dead = true;
      if (this.#waiting) {
        const unstarted = new Map(this.entries);
        this.entries.clear();
        return onDead(this, unstarted);
      }
      onDead(this, new Map());
      for (const id of [...this.entries.keys()]) this.#forget(id).listener.crashed(supervisionErrors.workerExited);
    });
    port.unref();
  }

  get load(): number {
    return this.entries.size;
  }

  add(id: number, entry: Entry): void {
    // While a host supervises anything, its port keeps the host process alive (a pending result is no handle).
    if (this.entries.size === 0) this.port.ref();
    this.entries.set(id, entry);
    const requests = entry.requests.splice(0);
    for (const request of requests) this.send(id, request);
  }

  send(id: number, request: HostRequest): void {
    if (this.#dead) return;
    if (this.#waiting) this.entries.get(id)?.requests.push(request);
    else this.port.postMessage(request);
  }

  /** The attach task may return (every host of the first batch is ready). */
  go(): void {
    if (!this.#dead) this.port.postMessage({ type: 'go' } satisfies HostRequest);
  }

  #forget(id: number): Entry {
    const entry = this.entries.get(id)!;
    this.entries.delete(id);
    if (this.entries.size === 0) this.port.unref();
    return entry;
  }
}

export class SupervisorHosts {
  readonly #pool: Piscina;
  readonly #hosts = new Set<Host>();
  /** Which host carries each live command. */
  readonly #route = new Map<number, Host>();
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
    void Promise.all(hosts.map((host) => host.ready)).then(() => {
      for (const host of hosts) host.go();
    });
  }

  /** Sends a command to the least-loaded host; it starts at once. */
  start(task: SupervisorTask, listener: LaunchListener): LaunchControl {
    const id = this.#nextId++;
    const forget = (): void => void this.#route.delete(id);
    const entry: Entry = {
      listener: {
        result: listener.result,
        waiting: listener.waiting,
        deadline: listener.deadline,
        screen: listener.screen,
        gone: () => {
          forget();
          listener.gone();
        },
        crashed: (error) => {
          forget();
          listener.crashed(error);
        },
      },
      requests: [{ type: 'start', id, task }],
    };
    this.#place(id, entry);
    return {
      kill: (cause) => this.#route.get(id)?.send(id, { type: 'kill', id, cause }),
      release: () => this.#route.get(id)?.send(id, { type: 'release', id }),
      end: () => this.#route.get(id)?.send(id, { type: 'end', id }),
      send: (line) => this.#route.get(id)?.send(id, { type: 'control', id, line }),
    };
  }

  /** Has the least-loaded host kill what a closing session's cgroups hold and remove them; settles when done, or
   * when the worker died meanwhile (never rejects). */
  clearCgroups(dirs: string[]): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const done = (): void => {
        this.#route.delete(id);
        resolve();
      };
      const ignore = (): void => {};
      const listener: LaunchListener = { result: ignore, waiting: ignore, deadline: ignore, screen: ignore, gone: done, crashed: done };
      this.#place(id, { listener, requests: [{ type: 'clear-cgroups', id, dirs }] });
    });
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

  #place(id: number, entry: Entry): void {
    let best: Host | undefined;
    for (const host of this.#hosts) if (!best || host.load < best.load) best = host;
    const host = best ?? this.#replace();
    this.#route.set(id, host);
    host.add(id, entry);
  }

  /** A replacement host (after a worker died): it may share a worker with another host, which is harmless. */
  #replace(): Host {
    const host = this.#attach();
    void host.ready.then(() => host.go());
    return host;
  }

  #attach(): Host {
    const { port1, port2 } = new MessageChannel();
    const host = new Host(port1, (dead, unstarted) => {
      this.#hosts.delete(dead);
      if (this.#closed) {
        for (const entry of unstarted.values()) entry.listener.crashed(supervisionErrors.executorClosed);
        return;
      }
      // Piscina replaces the dead worker; a new host attaches to whichever worker takes the task.
      this.#replace();
      for (const [id, entry] of unstarted) this.#place(id, entry);
    });
    this.#hosts.add(host);
    // A task that fails (its worker died, perhaps before it ever received the port) ends the host the same way.
    this.#pool.run({ port: port2 }, { transferList: [port2] }).catch(() => port1.close());
    return host;
  }
}
