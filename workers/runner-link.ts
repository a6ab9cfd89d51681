// This side of one runner's status socket: the request goes out on it (with the command's terms behind it), status
// lines come back on it, control lines go out on it during the command, and ending it is the runner's lifeline.
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { loadBinding } from '../src/native/loader.js';
import { encode, type RunnerRequest } from '../src/executor/wire/request.js';

const binding = loadBinding();

export interface RunnerLink {
  socket: Socket;
  /** Sends one control line; to a runner already gone it goes nowhere. */
  send(line: string): void;
}

/**
 * Has a runner forked for one command through `send` (which hands the server the runner's descriptors), with `out`
 * and `err` as its stdout and stderr (the caller keeps its own copies); `first` (the command's terms) follows the
 * request in the same write, so the runner has it before any other line can fail to reach it.
 */
export async function launchThrough(send: (fds: number[]) => Promise<void>, request: RunnerRequest, out: number, err: number, first: string): Promise<RunnerLink> {
  const [mine, theirs] = binding.socketpair(false);
  let frame: Buffer;
  let sent: number;
  try {
    // The descriptors go first, so the server forks while this thread encodes the request: written straight after,
    // it waits in the socket long before the forked runner comes to read it.
    const handed = send([theirs, out, err]);
    try {
      frame = Buffer.concat([encode(request), Buffer.from(`${first}\n`)]);
      sent = writeEarly(mine, frame);
    } finally {
      // Settled before `theirs` is closed, whatever failed: the server may not have been handed it yet.
      await handed;
    }
  } catch (error) {
    binding.closeFd(mine);
    throw error;
  } finally {
    binding.closeFd(theirs);
  }
  const socket = new Socket({ fd: mine, readable: true, writable: true });
  // A runner that died early shows as the end of its status lines; a failed write adds nothing to that.
  socket.on('error', () => {});
  if (sent < frame.length) socket.write(frame.subarray(sent));
  return { socket, send: (line) => sendLine(socket, mine, line) };
}

/**
 * A line is far smaller than the socket's buffer, which the runner empties as it reads: written straight to the
 * descriptor, where a runner gone meanwhile makes it fail alone. Through the socket a failed write destroys it, and
 * with it the runner's last lines still waiting to be read. Behind the request while part of that waits to leave.
 */
function sendLine(socket: Socket, fd: number, line: string): void {
  if (socket.destroyed) return;
  const bytes = Buffer.from(`${line}\n`);
  if (socket.writableLength > 0) return void socket.write(bytes);
  try {
    writeSync(fd, bytes);
  } catch {
    // EPIPE: the runner is gone, and its lines tell the rest.
  }
}

/** Writes what the socket takes now (it is non-blocking): all of a usual request; a larger one's rest goes later,
 * through the socket's own queue. Returns the bytes written. */
function writeEarly(fd: number, frame: Buffer): number {
  try {
    return writeSync(fd, frame);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
    throw error;
  }
}
