// The CLI's help texts, one per command.

/** The runtime options of every command that runs commands; run lists its own --timeout above them. */
const TIMEOUT_LINE = `  --timeout <ms>                   A call's timeout when it names none (default 120000)
`;
const RUNTIME_OPTIONS = `Runtime options (run, mcp and serve):
  --config <file>                  JSON: createRuntime's options (executor, jobs, sandbox, ...), plus a "serve"
                                   section for serve (host, port, tokenFile, maxSessions, idleTimeoutMs, ...)
  --timeout <ms>                   A call's timeout when it names none (default 120000)
  --max-timeout <ms>               The longest timeout a call may ask for (default 600000)
  --max-output-bytes <n>           Tail kept in the result per stream (default 64000)
  --max-spill-bytes <n>            Largest spill file per stream (default 2 GiB)
  --max-jobs <n>                   Background jobs running at once per session (default 10)
  --sandbox <mode>                 Confine every command: read-only, workspace-write or danger-full-access
  --sandbox-backend <name>         landlock (default) or bubblewrap
  --network <allow|deny|domains>   Network access of confined commands (default allow); domains: only the hosts
                                   below, through a proxy (docs/sandbox.md)
  --network-allow <hosts>          Comma-separated hosts (host, *.suffix, IP, each optionally :port) commands may
                                   reach (implies --network domains)
  --network-deny <hosts>           Comma-separated hosts refused even when allowed (implies --network domains)
  --network-presets <names>        Registries to allow: npm, pypi, crates, github, debian (implies domains)
  --network-ask                    Put a host on neither list to a person instead of refusing it (implies domains)
  --allow-unix-sockets             With --network deny, still allow unix sockets (every named one visible)
  --env-inherit <all|core|none>    Which host variables commands start from (default all, credentials removed)
  --env-exclude <globs>            Comma-separated name globs to remove
  --env-include-only <globs>       Comma-separated name globs to keep (all others removed)
  --policy <file>                  JSON: a command policy ({"default": ..., "rules": [...]}; docs/policies.md);
                                   replaces the --config file's "policy"
  --ssh-host <[user@]host[:port]>  Run each session's commands on one of these hosts over OpenSSH (repeatable;
                                   key ~/.ssh/id_ed25519, known_hosts ~/.ssh/known_hosts, shellring-runner on
                                   its PATH; the --config file's executor.hosts takes every field)

Precedence, for every setting: command-line flag, then environment variable (SHELLRING_TOKEN), then the
--config file, then the default. The file is validated by the same schema as createRuntime's options.
`;

export const TOP_HELP = `Usage: shellring <command> [options]

The bash tool for agent servers, from the command line.

Commands:
  run [options] -- <command>  Run one bash command through the runtime; print exactly what a model would see
  mcp [options]               Serve the tools over MCP on stdio (one session)
  serve [options]             Serve the tools over MCP streamable HTTP (one runtime session per MCP session)
  demo                        Walk through a few calls (a failure, a truncated stream, background jobs)

Options:
  -h, --help                  Show this help
  -v, --version               Print the version

Run 'shellring <command> --help' for a command's options.
`;

export const RUN_HELP = `Usage: shellring run [options] -- <command>

Runs <command> with bash -c through the whole runtime and prints exactly the text a model would see on stdout
(a newline is added only when stdout is a terminal). Spill files named in that text are kept after exit.

Exit status: 0 when the call produced a result, whatever the command's own exit code (read the [exit code: N]
marker); 1 when the call was an error (its "Error: ..." text goes to stderr); 2 for a usage error;
130 or 143 when interrupted by SIGINT or SIGTERM (the command is killed).

With --tty the command runs on a terminal of this terminal's size (a terminal job) and this terminal is its own:
keystrokes go to it as typed (ctrl-c included), its output appears as it draws, a resize follows. The exit
status is then the command's own (128 + n when signal n ended it); SIGTERM or SIGHUP here ends it.

Options:
  --cwd <dir>       Working directory (default: the current directory)
  --timeout <ms>    Stop the command after this many milliseconds (default 120000, at most 600000; not with --tty)
  --tty             Run the command on a terminal typed into from this one (python3 -i, vim, npm init)
  -h, --help        Show this help

${RUNTIME_OPTIONS.replace(TIMEOUT_LINE, '')}`;

export const MCP_HELP = `Usage: shellring mcp [options]

Serves bash, job_output, job_list and job_kill over MCP on stdin/stdout as one session, until stdin closes.
Background job completions arrive as notifications/message (level info, logger "shellring.jobs").

Options:
  --cwd <dir>       The session's working directory (default: the current directory)
  -h, --help        Show this help

${RUNTIME_OPTIONS}`;

export const SERVE_HELP = `Usage: shellring serve [options]

Serves the tools over MCP streamable HTTP at http://<host>:<port>/mcp, printing the URL on stderr. Each MCP
session is its own runtime session: its jobs are its own and end when it closes. Logs are JSON lines on stderr.

Every request needs "Authorization: Bearer <token>". The token comes from --token-file, else the
SHELLRING_TOKEN environment variable; with neither, a random token is generated and printed on stderr
(allowed on a loopback address only). A request whose Origin is not the server's own is refused (403).
GET /healthz and GET /readyz need no token; GET /metrics (Prometheus text) does. Neither does the OAuth
protected-resource metadata at GET /.well-known/oauth-protected-resource (and .../mcp).

SIGTERM drains: no new sessions or calls, the calls in flight finish (up to --drain-timeout), then the
server closes everything and exits 0. SIGINT closes at once.

The web console is served at / on the same port: sign in once with the token in its form (a generated
token's printed /?token= link works too; a configured token never travels in an address) to watch sessions,
tool calls and jobs live, stop jobs, change a session's sandbox mode, and approve sandbox escalations and
the commands a --policy asks about, for sessions whose MCP client cannot ask its user. The sign-in cookie is
random, never the token; mode changes and approvals need it (the bearer token alone cannot make them). A token
file must be mode 600 or stricter; under a sandbox its directory is hidden from confined commands, so it must
be a directory of its own.

Options:
  --port <port>                    TCP port (default 0: an ephemeral port)
  --host <address>                 Address to listen on (default 127.0.0.1; any other needs an explicit token)
  --token-file <file>              File holding the bearer token (one trailing newline is ignored)
  --cwd <dir>                      Every session's working directory (default: the current directory)
  --max-sessions <n>               Open sessions at most; more get 503 with Retry-After (default 500)
  --max-commands-per-session <n>   Commands running at once in one session (default 16)
  --max-commands <n>               Commands running at once in all sessions (default 512)
  --idle-timeout <ms>              Close a session idle this long, its jobs killed (default 1800000; 0 never)
  --drain-timeout <ms>             How long SIGTERM waits for calls in flight (default 30000)
  --log-commands                   Put each command's text in the logs (off by default: commands may hold secrets)
  --secure-cookie                  Mark the console's sign-in cookie Secure (reached over https, e.g. a TLS proxy)
  --instance-id <name>             This instance's name in 2026-07-28 handles and task ids, which a load balancer
                                   routes by (letters, digits, _ and -; default: random; deploy/haproxy.cfg)
  --resource-url <url>             The MCP endpoint's public URL in the OAuth protected-resource metadata
                                   (default: from each request's Host header)
  --authorization-server <urls>    OAuth authorization servers (comma-separated issuer URLs) the metadata names;
                                   401 challenges then point to it (the bearer token stays what is checked)
  -h, --help                       Show this help

${RUNTIME_OPTIONS}`;

export const DEMO_HELP = `Usage: shellring demo

Runs a short sequence of tool calls in a temporary directory and prints each call and exactly what a model
would see: a failing command, a long stream cut to its tail with the spill file that holds all of it, a
background job read with job_output, and a command that outlives its timeout and continues as a job.
Tails are capped at 200 bytes here so the output stays short. Spill files are kept after exit.

Options:
  -h, --help  Show this help
`;
