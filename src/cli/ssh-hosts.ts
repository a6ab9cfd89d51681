// `--ssh-host [user@]host[:port]`, repeatable: the SSH executor over those hosts, with the user's own key and
// known_hosts file (the --config file's executor.hosts sets every field of a host).
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RuntimeOptions } from '../runtime/options.js';
import { usageError } from './args.js';

type ExecutorOptions = NonNullable<RuntimeOptions['executor']>;

export function sshHosts(flags: string[]): Pick<ExecutorOptions, 'kind' | 'hosts'> {
  const hosts = flags.map((flag) => {
    const match = /^(?:([^@\s]+)@)?([^@\s:]+|\[[0-9a-fA-F:]+\])(?::(\d{1,5}))?$/.exec(flag);
    const port = match?.[3] === undefined ? 22 : Number(match[3]);
    if (!match || port < 1 || port > 65_535) throw usageError(`invalid --ssh-host: expected [user@]host[:port], got '${flag}'`);
    return {
      host: match[2]!.replace(/^\[|\]$/g, ''),
      port,
      ...(match[1] ? { user: match[1] } : {}),
      identityFile: join(homedir(), '.ssh', 'id_ed25519'),
      knownHostsFile: join(homedir(), '.ssh', 'known_hosts'),
    };
  });
  return { kind: 'ssh', hosts };
}
