// The sandbox policy's configuration: one zod schema holds its choices and defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';
import { SANDBOX_MODES } from './modes.js';

export const sandboxConfigSchema = z
  .object({
    /** The deployment's standing mode, every session's default. */
    mode: z.enum(SANDBOX_MODES).default('read-only'),
    backend: z.enum(['landlock', 'bubblewrap']).default('landlock'),
    /** Modes govern file writes; network is a separate switch, allowed by default. */
    network: z.enum(['allow', 'deny']).default('allow'),
    /** The bubblewrap executable, for backend 'bubblewrap'. */
    bwrapPath: z.string().min(1).default('bwrap'),
  })
  .strict();

export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;
