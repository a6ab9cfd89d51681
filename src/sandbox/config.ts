// The sandbox policy's configuration: one zod schema holds its choices and defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';
import { SANDBOX_MODES } from './modes.js';

export const sandboxConfigSchema = z
  .object({
    mode: z.enum(SANDBOX_MODES).default('read-only').describe('The standing sandbox mode of every session (a person can change one session\'s with setSandboxMode).'),
    backend: z.enum(['landlock', 'bubblewrap']).default('landlock').describe('landlock (through shellring-runner) or bubblewrap.'),
    network: z.enum(['allow', 'deny']).default('allow').describe('Modes govern file writes; deny refuses confined commands every socket but netlink: TCP, UDP, raw and unix (see allowUnixSockets).'),
    allowUnixSockets: z
      .boolean()
      .default(false)
      .describe(
        'With network deny, still let commands make unix sockets and connect to every named (pathname) unix socket they can see, outside the workspace too (e.g. /var/run/docker.sock if visible); TCP, UDP and raw sockets stay refused. No effect with network allow.',
      ),
    bwrapPath: z.string().min(1).default('bwrap').describe('The bubblewrap executable, for backend bubblewrap.'),
  })
  .strict();

export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;
