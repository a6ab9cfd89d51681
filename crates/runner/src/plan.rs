//! What the runner was asked to do: the command, and the confinement to apply before it runs.

#[derive(Default)]
pub enum Backend {
    /// No confinement: the command runs with the runner's own authority.
    #[default]
    None,
    /// Capabilities dropped, no_new_privs, then a Landlock ruleset.
    Landlock,
    /// bubblewrap at the given path, always with every capability dropped, a new session and die-with-parent.
    Bubblewrap(String),
}

#[derive(Default)]
pub struct Plan {
    pub command: String,
    pub backend: Backend,
    pub writable: Vec<String>,
    pub deny_network: bool,
    /// With the network denied, unix sockets may still be made and connected (any named socket the command sees).
    pub allow_unix_sockets: bool,
    /// Directories hidden from a confined command (the runtime's state): empty in its view.
    pub hidden: Vec<String>,
    /// Cgroup directories (one per hierarchy) the command joins before it runs, made when missing.
    pub cgroups: Vec<String>,
    /// `NAME=VALUE` control-file writes applied to each of those cgroups that has NAME (`?NAME=VALUE`: where the
    /// kernel accepts it), before joining.
    pub cgroup_limits: Vec<String>,
    /// Process-count limit of a command that runs in its own user namespace.
    pub nproc: Option<u64>,
    /// How the Landlock backend guards metadata: a mount namespace, else seccomp (`Auto`), or seccomp only.
    pub isolation: Isolation,
    /// What a confined command may read: the host's files, or the session view (see `view`).
    pub view: View,
    /// Paths shown read-only: in the session view its only data; in both views bound back below a hidden directory.
    pub readable: Vec<String>,
    /// Paths whose content a confined command never sees (a file reads empty, a directory is empty).
    pub denied: Vec<String>,
    /// Run inside a session sandbox (see `session`): its namespaces, view, cgroups and, with bubblewrap, seccomp
    /// filter are in place already; the command gets only its own Landlock ruleset, filter and limits. Set by the
    /// sandbox's fork server, never by an argument.
    pub inside: bool,
}

/// The read policy of a confined command.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub enum View {
    /// The host's files, minus the denied and hidden paths.
    #[default]
    Host,
    /// The operating system read-only, the readable and writable paths, and nothing else that holds data.
    Session,
}

#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub enum Isolation {
    #[default]
    Auto,
    Seccomp,
}

pub enum Invocation {
    Run(Plan),
    Probe,
    /// A fork server on fd 3: forks a runner for each command sent there.
    Serve,
    /// Framed requests on stdin, framed events on stdout (see `stdio`): many commands over one byte stream.
    Stdio,
    /// A session sandbox on fd 3: builds the plan's view (no command) around a fork server inside it.
    SessionServe(Plan),
    /// The fork server inside a bubblewrap session sandbox: its runners are `inside`; `host_proc` is the host's
    /// /proc, opened before bubblewrap hid it.
    ServeInside {
        host_proc: i32,
    },
    /// Inside bubblewrap's user namespace: set the process-count limit, then exec the rest (bash).
    ExecLimited {
        nproc: u64,
        argv: Vec<String>,
    },
}

pub const USAGE: &str = "usage: shellring-runner [--landlock | --bwrap PATH] [--rw PATH]... [--hide PATH]... [--deny-network [--allow-unix-sockets]]\n         [--view host|session] [--ro PATH]... [--deny PATH]... [--cgroup DIR]... [--cgroup-limit [?]NAME=VALUE]... [--nproc N] [--isolation auto|seccomp] -c <command>\n       shellring-runner --probe\n       shellring-runner --serve   (fd 3: the server socket)\n       shellring-runner --landlock|--bwrap PATH [confinement flags]... --serve   (a session sandbox; fd 3: its socket)\n       shellring-runner --stdio   (framed requests on stdin, framed events on stdout)\n(fd 3 must be the status socket when running a command)";

/// # Errors
/// A message naming the bad argument.
pub fn parse(args: &[String]) -> Result<Invocation, String> {
    let mut backend = Backend::None;
    let mut writable = Vec::new();
    let mut deny_network = false;
    let mut allow_unix_sockets = false;
    let mut hidden = Vec::new();
    let mut cgroups = Vec::new();
    let mut cgroup_limits = Vec::new();
    let mut nproc = None;
    let mut isolation = Isolation::Auto;
    let mut view = View::Host;
    let mut readable = Vec::new();
    let mut denied = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--probe" if args.len() == 1 => return Ok(Invocation::Probe),
            "--serve" if args.len() == 1 => return Ok(Invocation::Serve),
            "--stdio" if args.len() == 1 => return Ok(Invocation::Stdio),
            "--serve-inside" if args.len() == 2 => {
                let fd = value(&mut iter, arg)?;
                let host_proc = fd
                    .parse::<i32>()
                    .ok()
                    .filter(|&fd| fd > 2)
                    .ok_or_else(|| format!("--serve-inside: not a descriptor: {fd:?}"))?;
                return Ok(Invocation::ServeInside { host_proc });
            }
            "--exec-limited" => {
                let n = value(&mut iter, arg)?;
                let nproc = n
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("--exec-limited: not a positive count: {n:?}"))?;
                if iter.next().map(String::as_str) != Some("--") {
                    return Err("--exec-limited N must be followed by -- and a command".into());
                }
                let argv: Vec<String> = iter.cloned().collect();
                if argv.is_empty() {
                    return Err("--exec-limited N -- needs a command".into());
                }
                return Ok(Invocation::ExecLimited { nproc, argv });
            }
            "--landlock" => backend = Backend::Landlock,
            "--bwrap" => backend = Backend::Bubblewrap(value(&mut iter, arg)?),
            "--rw" => writable.push(value(&mut iter, arg)?),
            "--deny-network" => deny_network = true,
            "--allow-unix-sockets" => allow_unix_sockets = true,
            "--hide" => hidden.push(value(&mut iter, arg)?),
            "--ro" => readable.push(value(&mut iter, arg)?),
            "--deny" => denied.push(value(&mut iter, arg)?),
            "--view" => {
                view = match value(&mut iter, arg)?.as_str() {
                    "host" => View::Host,
                    "session" => View::Session,
                    other => {
                        return Err(format!("--view: expected host or session, got {other:?}"))
                    }
                }
            }
            "--cgroup" => cgroups.push(value(&mut iter, arg)?),
            "--cgroup-limit" => {
                let limit = value(&mut iter, arg)?;
                if !limit.trim_start_matches('?').contains('=') {
                    return Err(format!(
                        "--cgroup-limit: expected NAME=VALUE, got {limit:?}"
                    ));
                }
                cgroup_limits.push(limit);
            }
            "--nproc" => {
                let n = value(&mut iter, arg)?;
                nproc = Some(
                    n.parse::<u64>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| format!("--nproc: not a positive count: {n:?}"))?,
                );
            }
            "--isolation" => {
                isolation = match value(&mut iter, arg)?.as_str() {
                    "auto" => Isolation::Auto,
                    "seccomp" => Isolation::Seccomp,
                    other => {
                        return Err(format!(
                            "--isolation: expected auto or seccomp, got {other:?}"
                        ))
                    }
                }
            }
            "-c" | "--serve" => {
                let serve = arg == "--serve";
                let command = if serve {
                    String::new()
                } else {
                    value(&mut iter, arg)?
                };
                if iter.next().is_some() {
                    return Err(if serve {
                        "--serve must come last"
                    } else {
                        "-c <command> must come last"
                    }
                    .into());
                }
                if allow_unix_sockets && !deny_network {
                    return Err("--allow-unix-sockets applies only with --deny-network".into());
                }
                if view == View::Session && matches!(backend, Backend::None) {
                    return Err("--view session needs a sandbox backend".into());
                }
                if serve && (matches!(backend, Backend::None) || isolation == Isolation::Seccomp) {
                    return Err(
                        "a session sandbox needs a sandbox backend and its namespaces".into(),
                    );
                }
                let plan = Plan {
                    command,
                    backend,
                    writable,
                    deny_network,
                    allow_unix_sockets,
                    hidden,
                    cgroups,
                    cgroup_limits,
                    nproc,
                    isolation,
                    view,
                    readable,
                    denied,
                    inside: false,
                };
                return Ok(if serve {
                    Invocation::SessionServe(plan)
                } else {
                    Invocation::Run(plan)
                });
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Err("missing -c <command>".into())
}

fn value<'a>(iter: &mut impl Iterator<Item = &'a String>, flag: &str) -> Result<String, String> {
    iter.next()
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn run(list: &[&str]) -> Plan {
        match parse(&args(list)) {
            Ok(Invocation::Run(plan)) => plan,
            Ok(_) => panic!("not parsed as a run"),
            Err(e) => panic!("refused: {e}"),
        }
    }

    #[test]
    fn sandbox_layers_and_limits() {
        let plan = run(&[
            "--landlock",
            "--hide",
            "/s",
            "--hide",
            "/t",
            "--cgroup",
            "/cg/a",
            "--cgroup-limit",
            "pids.max=9",
            "--nproc",
            "40",
            "--isolation",
            "seccomp",
            "-c",
            "x",
        ]);
        assert_eq!(plan.hidden, ["/s", "/t"]);
        assert_eq!(plan.cgroups, ["/cg/a"]);
        assert_eq!(plan.cgroup_limits, ["pids.max=9"]);
        assert_eq!(plan.nproc, Some(40));
        assert_eq!(plan.isolation, Isolation::Seccomp);
        assert_eq!(run(&["-c", "x"]).isolation, Isolation::Auto);
    }

    #[test]
    fn read_policy() {
        let plan = run(&[
            "--bwrap",
            "bwrap",
            "--view",
            "session",
            "--ro",
            "/a",
            "--ro",
            "/b",
            "--deny",
            "/etc/shadow",
            "-c",
            "x",
        ]);
        assert_eq!(plan.view, View::Session);
        assert_eq!(plan.readable, ["/a", "/b"]);
        assert_eq!(plan.denied, ["/etc/shadow"]);
        assert_eq!(run(&["--landlock", "-c", "x"]).view, View::Host);
        assert_eq!(
            parse(&args(&["--view", "session", "-c", "x"]))
                .err()
                .as_deref(),
            Some("--view session needs a sandbox backend")
        );
        assert_eq!(
            parse(&args(&["--view", "all", "-c", "x"])).err().as_deref(),
            Some("--view: expected host or session, got \"all\"")
        );
    }

    #[test]
    fn bad_limits_and_isolation_are_refused() {
        for (list, message) in [
            (
                &["--nproc", "0", "-c", "x"][..],
                "--nproc: not a positive count: \"0\"",
            ),
            (
                &["--nproc", "many", "-c", "x"][..],
                "--nproc: not a positive count: \"many\"",
            ),
            (
                &["--isolation", "none", "-c", "x"][..],
                "--isolation: expected auto or seccomp, got \"none\"",
            ),
            (
                &["--exec-limited", "5", "bash"][..],
                "--exec-limited N must be followed by -- and a command",
            ),
            (
                &["--exec-limited", "5", "--"][..],
                "--exec-limited N -- needs a command",
            ),
        ] {
            assert_eq!(parse(&args(list)).err().as_deref(), Some(message));
        }
    }

    #[test]
    fn exec_limited_takes_the_rest_verbatim() {
        match parse(&args(&["--exec-limited", "7", "--", "bash", "-c", "--rw"])) {
            Ok(Invocation::ExecLimited { nproc, argv }) => {
                assert_eq!(nproc, 7);
                assert_eq!(argv, ["bash", "-c", "--rw"]);
            }
            _ => panic!("not parsed as exec-limited"),
        }
    }

    #[test]
    fn plain_command() {
        let plan = run(&["-c", "echo hi"]);
        assert_eq!(plan.command, "echo hi");
        assert!(matches!(plan.backend, Backend::None));
        assert!(plan.writable.is_empty() && !plan.deny_network);
    }

    #[test]
    fn landlock_with_paths_and_no_network() {
        let plan = run(&[
            "--landlock",
            "--rw",
            "/tmp/a",
            "--rw",
            "/tmp/b",
            "--deny-network",
            "-c",
            "true",
        ]);
        assert!(matches!(plan.backend, Backend::Landlock));
        assert_eq!(plan.writable, ["/tmp/a", "/tmp/b"]);
        assert!(plan.deny_network);
        assert!(!plan.allow_unix_sockets);
    }

    #[test]
    fn unix_sockets_allowed_only_with_the_network_denied() {
        let plan = run(&[
            "--bwrap",
            "bwrap",
            "--allow-unix-sockets",
            "--deny-network",
            "-c",
            "true",
        ]);
        assert!(plan.deny_network && plan.allow_unix_sockets);
        assert_eq!(
            parse(&args(&["--landlock", "--allow-unix-sockets", "-c", "true"]))
                .err()
                .as_deref(),
            Some("--allow-unix-sockets applies only with --deny-network")
        );
    }

    #[test]
    fn bubblewrap_path() {
        let plan = run(&["--bwrap", "/usr/bin/bwrap", "-c", "true"]);
        assert!(matches!(plan.backend, Backend::Bubblewrap(ref p) if p == "/usr/bin/bwrap"));
    }

    #[test]
    fn a_session_sandbox_takes_the_confinement_flags_and_no_command() {
        match parse(&args(&[
            "--landlock",
            "--rw",
            "/w",
            "--view",
            "session",
            "--serve",
        ])) {
            Ok(Invocation::SessionServe(plan)) => {
                assert_eq!(plan.writable, ["/w"]);
                assert!(plan.command.is_empty() && !plan.inside);
            }
            _ => panic!("not parsed as a session sandbox"),
        }
        assert!(matches!(
            parse(&args(&["--serve-inside", "5"])),
            Ok(Invocation::ServeInside { host_proc: 5 })
        ));
        assert!(parse(&args(&["--serve-inside", "1"])).is_err());
        for list in [
            &["--serve", "-c", "x"][..],
            &["--rw", "/w", "--serve"][..],
            &["--landlock", "--isolation", "seccomp", "--serve"][..],
        ] {
            assert!(parse(&args(list)).is_err(), "{list:?}");
        }
    }

    #[test]
    fn probe_only_alone() {
        assert!(matches!(parse(&args(&["--probe"])), Ok(Invocation::Probe)));
        assert!(parse(&args(&["--probe", "-c", "true"])).is_err());
    }

    #[test]
    fn refusals_name_the_problem() {
        assert_eq!(parse(&args(&[])).err().unwrap(), "missing -c <command>");
        assert_eq!(parse(&args(&["-c"])).err().unwrap(), "-c needs a value");
        assert_eq!(parse(&args(&["--rw"])).err().unwrap(), "--rw needs a value");
        assert_eq!(
            parse(&args(&["-c", "true", "x"])).err().unwrap(),
            "-c <command> must come last"
        );
        assert_eq!(
            parse(&args(&["--nope", "-c", "true"])).err().unwrap(),
            "unknown argument \"--nope\""
        );
    }
}
