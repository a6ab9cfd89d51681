// The end of a session's cgroups, run in a supervisor worker only (the owner of every signal and sweep): whatever
// the cgroup still holds is killed, then the directory is removed, asynchronously and without ever throwing.
import { readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { signal } from './sweep.js';

/** Rounds of kill-and-look before a cgroup that keeps a process is left behind (the host's reaper is stuck). */
const ROUNDS = 200;
const ROUND_MS = 5;

/** Kills what each cgroup still holds and removes it; settles once every one is gone or given up on. */
export async function clearCgroups(dirs: readonly string[]): Promise<void> {
  await Promise.all(dirs.map(killAndRemove));
}

/** cgroup.kill where the kernel has it (v2), else SIGKILL to every listed process until none is left. */
async function killAndRemove(dir: string): Promise<void> {
  try {
    await writeFile(join(dir, 'cgroup.kill'), '1');
  } catch {
    // v1, a kernel before 5.14, or a session whose commands never made the cgroup: kill them one by one.
  }
  for (let round = 0; round < ROUNDS; round++) {
    let pids: number[];
    try {
      pids = (await readFile(join(dir, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean).map(Number);
    } catch {
      return;
    }
    if (!pids.length && (await removeDir(dir))) return;
    for (const pid of pids) signal(pid, 'SIGKILL');
    // Killed processes leave the cgroup once reaped by their runner; rmdir fails until then.
    await new Promise((resolve) => setTimeout(resolve, ROUND_MS));
  }
}

/** Removes a cgroup and the cgroups below it (each must be empty of processes); false when one cannot go yet. */
async function removeDir(dir: string): Promise<boolean> {
  try {
    for (const entry of await readdir(dir, { withFileTypes: true })) if (entry.isDirectory()) await removeDir(join(dir, entry.name));
    await rmdir(dir);
    return true;
  } catch {
    return false;
  }
}
