// The name a remote host goes by in texts and logs.
import type { SshHost } from '../ssh-options.js';

/** The name a host goes by in texts and logs: `user@host:port`. */
export function hostLabel(host: SshHost): string {
  return `${host.user ? `${host.user}@` : ''}${host.host}:${host.port}`;
}
