// The sandbox policy's configuration: one zod schema holds its choices and defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';
import { SANDBOX_MODES } from './modes.js';
import { networkSchema } from './network-config.js';
import { DEFAULT_READ_DENY, readDenyEntry } from './read-policy.js';
import { SANDBOX_BACKENDS } from '../executor/wire/plan.js';

const absolute = z.string().refine((path) => path.startsWith('/'), { message: 'expected an absolute path' });

export const sandboxConfigSchema = z
  .object({
    mode: z.enum(SANDBOX_MODES).default('read-only').describe('The standing sandbox mode of every session (a person can change one session\'s with setSandboxMode).'),
    backend: z.enum(SANDBOX_BACKENDS).default('landlock').describe('landlock (through shellring-runner) or bubblewrap.'),
    network: networkSchema,
    allowUnixSockets: z
      .boolean()
      .default(false)
      .describe(
        'With network deny, still let commands make unix sockets and connect to every named (pathname) unix socket they can see, outside the workspace too (e.g. /var/run/docker.sock if visible); TCP, UDP and raw sockets stay refused. No effect with network allow.',
      ),
    bwrapPath: z.string().min(1).default('bwrap').describe('The bubblewrap executable, for backend bubblewrap.'),
    read: z
      .enum(['session', 'host'])
      .default('session')
      .describe(
        "What confined commands may read. session: the operating system read-only (/usr, /bin, /lib*, /etc without its secrets, /opt, a minimal /dev, their own /proc, /sys), their workspace, private TMPDIR, own spill files (read-only), readAllow, and toolchains under a home that are on PATH (~/.cargo with ~/.rustup, ~/.nvm, ~/.pyenv, ~/.local/bin...) read-only; /home, /root, /srv, /mnt, /media, /tmp, /var/tmp and every other session's files are empty or refused. host: every file the user can read, minus readDeny and the runtime's state.",
      ),
    readAllow: z.array(absolute).default([]).describe('Paths confined commands may also read (read-only), in the session read policy.'),
    readDeny: z
      .array(readDenyEntry)
      .default([...DEFAULT_READ_DENY])
      .describe(
        'Paths whose content confined commands never see (a file reads empty, a directory is empty), under either read policy: absolute, or ~/ for under every home directory; * matches within the last component. The default names the usual credential stores.',
      ),
  })
  .strict();

export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;
