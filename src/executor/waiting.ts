// What a silent command waits for, read from /proc: each process's state, the syscall it sleeps in (by number, per
// architecture: wchan names differ between kernels, syscall numbers do not) and the target of the descriptor it
// waits on. Runs in the supervisor workers, never on the main thread.
import { readdirSync, readlinkSync } from 'node:fs';
import { readProcText } from './proc-text.js';
import type { WaitingFinding } from '../contract/index.js';

export type { WaitingFinding };

/** How long a command prints nothing before its processes are looked at, how soon they are looked at again, and
 * how far apart looks grow while they keep finding the same. */
export const SILENCE_MS = 3000;
export const LOOK_MS = 1000;
export const LOOK_MAX_MS = 16_000;

/** The /proc files the look reads: this host's, or a snapshot another host's runner took of its own. Each returns
 * undefined for what does not exist (any more). */
export interface ProcFiles {
  read(path: string): string | undefined;
  list(dir: string): string[] | undefined;
  link(path: string): string | undefined;
}

/** This host's /proc, read synchronously (in a supervisor worker). */
export const LOCAL_PROC: ProcFiles = {
  read: (path) => attempt(() => readProcText(path)),
  list: (dir) => attempt(() => readdirSync(dir)),
  link: (path) => attempt(() => readlinkSync(path)),
};

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Syscall numbers by architecture (asm-generic for arm64). */
const SYSCALLS: Record<string, Record<string, number[]>> = {
  x64: {
    read: [0, 17, 19, 295], // read, pread64, readv, preadv
    poll: [7, 23, 270, 271, 232, 281, 441], // poll, select, pselect6, ppoll, epoll_wait, epoll_pwait, epoll_pwait2
    accept: [43, 288],
    child: [61, 247], // wait4, waitid
  },
  arm64: {
    read: [63, 67, 65, 69],
    poll: [72, 73, 22, 441],
    accept: [202, 242],
    child: [260, 95],
  },
};

const TERMINAL = /^\/dev\/(?:pts\/\d+|tty\w*|console)$/;

/** What the processes below `root` (a runner on this host) wait for, read from this host's /proc. The tree is walked
 * as the look goes, so a look that meets a busy process stops there; each file is read once per look. */
export function findLocalWaiting(root: number): WaitingFinding | undefined {
  const files = new Map<string, string | undefined>();
  const read = (path: string) => (files.has(path) ? files.get(path) : files.set(path, LOCAL_PROC.read(path)).get(path));
  const proc: ProcFiles = { ...LOCAL_PROC, read };
  return findWaiting(root, walk(root, proc), process.arch, proc);
}

/** The pids below `root` by parent links, each yielded before its own children are read. */
function* walk(root: number, proc: ProcFiles): Generator<number> {
  const queue = [root];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const pid = queue.pop()!;
    // A process of one thread (most) has one children file; only others need their task directory listed.
    const threads = statFields(proc.read(`/proc/${pid}/stat`))?.[17];
    const tasks = threads === '1' ? [String(pid)] : (proc.list(`/proc/${pid}/task`) ?? []);
    for (const task of tasks) {
      for (const word of (proc.read(`/proc/${pid}/task/${task}/children`) ?? '').split(' ')) {
        const kid = Number(word);
        if (word.trim() === '' || seen.has(kid)) continue;
        seen.add(kid);
        yield kid;
        queue.push(kid);
      }
    }
  }
}

/** The finding for the processes below `root` (the runner), or undefined when they are not all waiting on
 * something that cannot come: one waits for input or connections and every other waits for a child or relays a
 * terminal. A pipeline waiting on its own producer, a sleep or a busy process is not a finding. `pids` are read as
 * they are needed: the first busy process ends the look. */
export function findWaiting(root: number, pids: Iterable<number>, arch: string = process.arch, proc: ProcFiles = LOCAL_PROC): WaitingFinding | undefined {
  const table = SYSCALLS[arch];
  if (!table) return undefined;
  // Where each process sleeps is read first: one busy process means no finding, found without reading descriptors.
  const all: number[] = [];
  const blocked: Blocked[] = [];
  for (const pid of pids) {
    if (pid === root) continue;
    all.push(pid);
    const stat = proc.read(`/proc/${pid}/stat`);
    // bubblewrap only waits for the sandbox it made; the runner's own pid-namespace monitor and init only wait for
    // the command (forks of the runner, they keep its name, which the kernel cuts to 15 bytes).
    const name = stat === undefined ? '?' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (name === 'bwrap' || name === 'shellring-runne') continue;
    const one = blockedIn(proc, pid, stat, table);
    if (one === undefined) continue; // ended while we looked
    if (one === 'busy') return undefined;
    if (one.wait !== 'child') blocked.push({ ...one, pid, name });
  }
  const fdCache = new Map<number, Map<number, string>>();
  const fdsOf = (pid: number) => fdCache.get(pid) ?? fdCache.set(pid, fdTargets(proc, pid)).get(pid)!;
  let found: WaitingFinding | undefined;
  for (const one of blocked) {
    const others = () => all.filter((pid) => pid !== one.pid).map(fdsOf);
    const wait = classify(proc, one, fdsOf(one.pid), others);
    if (wait.kind === 'relay') continue;
    if (wait.kind === 'busy') return undefined;
    if (wait.kind === 'input') {
      if (found?.kind !== 'input') found = { kind: 'input', pid: one.pid, name: one.name, source: wait.source };
    } else if (wait.kind === 'accept' && !found) {
      found = { kind: 'accept', pid: one.pid, name: one.name, address: wait.address };
    }
  }
  return found;
}

/** A sleeping process and the call it sleeps in, with its first argument (a descriptor, for read and accept). */
interface Blocked {
  pid: number;
  name: string;
  wait: 'child' | 'read' | 'poll' | 'accept';
  fd: number;
}

/** Where `pid` sleeps, from its state (`stat`, its stat file) and syscall alone: undefined when it ended, 'busy' when
 * it runs or sleeps in anything but a read, a poll, an accept or a wait for a child. */
function blockedIn(proc: ProcFiles, pid: number, stat: string | undefined, table: Record<string, number[]>): Omit<Blocked, 'pid' | 'name'> | 'busy' | undefined {
  const state = statFields(stat)?.[0];
  if (state === undefined || state === 'Z' || state === 'X') return undefined;
  if (state !== 'S') return 'busy';
  const syscall = proc.read(`/proc/${pid}/syscall`)?.trim();
  if (syscall === undefined) return undefined;
  const [nrText, arg0] = syscall.split(' ');
  const nr = Number(nrText);
  const fd = arg0 === undefined ? -1 : Number.parseInt(arg0, 16);
  const wait = (['child', 'read', 'poll', 'accept'] as const).find((kind) => table[kind]!.includes(nr));
  return wait === undefined ? 'busy' : { wait, fd };
}

/** A stat file's fields after the command name (state first, then ppid ...; the thread count at 17). */
function statFields(stat: string | undefined): string[] | undefined {
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

type Classified = { kind: 'input'; source: 'terminal' | 'stdin' } | { kind: 'accept'; address: string } | { kind: 'relay' | 'busy' };

/** What a process sleeping in a read, poll or accept waits for, from its descriptors' targets. */
function classify(proc: ProcFiles, { pid, wait, fd }: Blocked, fds: Map<number, string>, others: () => Map<number, string>[]): Classified {
  if (wait === 'read') {
    const target = fds.get(fd) ?? '';
    if (TERMINAL.test(target)) return { kind: 'input', source: 'terminal' };
    // Its own stdin with no writer among the command's processes: the bytes would have to come from outside.
    if (fd === 0 && target.startsWith('pipe:') && !others().some((other) => [...other.values()].includes(target))) {
      return { kind: 'input', source: 'stdin' };
    }
    return { kind: 'busy' };
  }
  if (wait === 'poll') {
    // A terminal relay (script, pty.spawn, an ssh client) holds the master side: it waits for its child.
    if ([...fds.values()].some((target) => target === '/dev/ptmx' || target.startsWith('/dev/pts/ptmx'))) return { kind: 'relay' };
    // Full-screen programs (vim, less) poll the terminal on their stdin.
    if (TERMINAL.test(fds.get(0) ?? '')) return { kind: 'input', source: 'terminal' };
    return { kind: 'busy' };
  }
  const target = fds.get(fd) ?? '';
  const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
  const address = inode === undefined ? undefined : listening(proc, pid, inode);
  return address === undefined ? { kind: 'busy' } : { kind: 'accept', address };
}

/** fd number → link target (`/dev/pts/3`, `pipe:[123]`, `socket:[456]`). */
function fdTargets(proc: ProcFiles, pid: number): Map<number, string> {
  const fds = new Map<number, string>();
  for (const name of proc.list(`/proc/${pid}/fd`) ?? []) {
    const target = proc.link(`/proc/${pid}/fd/${name}`);
    // Undefined: closed while we looked.
    if (target !== undefined) fds.set(Number(name), target);
  }
  return fds;
}

/** The local address of the TCP socket with this inode, in the process's own network namespace. */
function listening(proc: ProcFiles, pid: number, inode: string): string | undefined {
  for (const file of ['tcp', 'tcp6']) {
    const text = proc.read(`/proc/${pid}/net/${file}`);
    if (text === undefined) continue;
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[9] === inode) return address(fields[1]!, file === 'tcp6');
    }
  }
  return undefined;
}

/** `0100007F:1F90` → `127.0.0.1:8080`; IPv6 as eight groups (the kernel prints each 32-bit word in host order). */
function address(hex: string, v6: boolean): string {
  const [ip, port] = hex.split(':') as [string, string];
  const words = ip.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (!v6) return `${bytes.join('.')}:${Number.parseInt(port, 16)}`;
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `[${groups.join(':')}]:${Number.parseInt(port, 16)}`;
}
