// Commands that wait on something that cannot come, and the wait for their finding, shared by the local and remote
// waiting tests.
import type { Runtime, Session } from '../../src/index.js';
import { background, text, until } from './calls.js';

/** A terminal for the prompt: python3's pty module forks bash onto a PTY slave and waits for it. */
export const onPty = (script: string) =>
  `python3 -c 'import os, pty, sys; pid, fd = pty.fork()\nif pid == 0: os.execvp("bash", ["bash", "-c", sys.argv[1]])\nos.waitpid(pid, 0)' '${script}'`;

/** Starts an accept() server in the background; returns its job, its port, and the job_list text once it names the
 * finding. */
export async function acceptServer(runtime: Runtime, s: Session): Promise<{ id: string; port: number; listed: string }> {
  const id = await background(
    s,
    `python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); s.accept()'`,
  );
  const port = await until(() => Number(runtime.jobs!.follow(id, 0).segments.map((seg) => seg.data.toString()).join('')) || undefined, 15_000, 'the port');
  const listed = await until(
    async () => {
      const line = text(await s.callTool('job_list', {}));
      return line.includes('[waiting: ') ? line : undefined;
    },
    30_000,
    'the finding',
  );
  return { id, port, listed };
}
