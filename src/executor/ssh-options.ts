// The SSH executor's options: the hosts a session may be placed on and how one is chosen (part of the executor's
// configuration, src/executor/config.ts).
import { z } from 'zod';

export const sshHostSchema = z
  .object({
    host: z.string().min(1).describe('Host name or address to connect to.'),
    port: z.number().int().min(1).max(65_535).default(22).describe('sshd port.'),
    user: z.string().min(1).optional().describe('Remote user (default: ssh\'s own choice, the local user name).'),
    identityFile: z.string().min(1).describe('Private key to authenticate with; no other identity, agent or password is tried.'),
    knownHostsFile: z.string().min(1).describe('known_hosts file holding the host\'s key; an unknown or different key is refused.'),
    runnerPath: z.string().min(1).default('shellring-runner').describe('Where shellring-runner is on that host.'),
    maxSessions: z.number().int().positive().default(10).describe('Sessions placed on this host at once (each holds one SSH channel: keep it within the host\'s sshd MaxSessions, 10 by default); a new session past every host\'s limit is refused.'),
  })
  .strict();

export type SshHost = z.output<typeof sshHostSchema>;

export const sshExecutorShape = {
  kind: z.enum(['local', 'ssh']).default('local').describe('local: commands run on this host. ssh: each session\'s commands run on one of `hosts`, over OpenSSH (docs/remote-hosts.md).'),
  hosts: z.array(sshHostSchema).optional().describe('With kind ssh: the hosts sessions are placed on, each { host, port (22), user, identityFile, knownHostsFile, runnerPath ("shellring-runner"), maxSessions (10) }.'),
  placement: z.enum(['least-loaded']).default('least-loaded').describe('With kind ssh: how a new session picks its host (least-loaded: the fewest sessions placed).'),
};
