// The sandbox policy's configuration: one zod schema holds its choices and defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';
import { SANDBOX_MODES } from './modes.js';

export const sandboxConfigSchema = z
  .object({
    mode: z.enum(SANDBOX_MODES).default('read-only').describe('The standing sandbox mode of every session (a person can change one session\'s with setSandboxMode).'),
    backend: z.enum(['landlock', 'bubblewrap']).default('landlock').describe('landlock (through shellring-runner) or bubblewrap.'),
    network: z.enum(['allow', 'deny']).default('allow').describe('Modes govern file writes; deny also blocks network access where the backend can.'),
    bwrapPath: z.string().min(1).default('bwrap').describe('The bubblewrap executable, for backend bubblewrap.'),
  })
  .strict();

export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;
