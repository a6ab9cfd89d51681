//! What the runner was asked to do: the command, and the confinement to apply before it runs, decoded from the
//! one encoding the host writes (src/executor/confinement-plan.ts): positional NUL-terminated fields of the request
//! frame: backend (`none`, `landlock`, `bubblewrap`), bubblewrap's path (empty otherwise), network (`allow`, `deny`,
//! `deny-except-unix`), isolation (`auto`, `seccomp`), view (`host`, `session`), the process limit (empty: none),
//! then the lists writable, hidden, readable, denied, cgroups and cgroup limits (each a count, then its entries),
//! then the command. A session sandbox gets the same fields (its command empty) as a frame on stdin.

use crate::fields::{Fields, Writer};

#[derive(Default, Debug, PartialEq, Eq)]
pub enum Backend {
    /// No confinement: the command runs with the runner's own authority.
    #[default]
    None,
    /// Capabilities dropped, no_new_privs, then a Landlock ruleset.
    Landlock,
    /// bubblewrap at the given path, always with every capability dropped, a new session and die-with-parent.
    Bubblewrap(String),
}

#[derive(Default, Debug, PartialEq, Eq)]
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
    /// sandbox's fork server, never by a request.
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

impl Plan {
    /// Reads the plan's fields off `fields`.
    ///
    /// # Errors
    /// A message naming the malformed field.
    pub fn decode(fields: &mut Fields<'_>) -> Result<Plan, String> {
        let backend = match fields.text()?.as_str() {
            "none" => Backend::None,
            "landlock" => Backend::Landlock,
            "bubblewrap" => Backend::Bubblewrap(String::new()),
            other => return Err(format!("plan: unknown backend {other:?}")),
        };
        let path = fields.text()?;
        let backend = match backend {
            Backend::Bubblewrap(_) if path.is_empty() => {
                return Err("plan: bubblewrap needs its path".into())
            }
            Backend::Bubblewrap(_) => Backend::Bubblewrap(path),
            _ if !path.is_empty() => return Err("plan: a path for no bubblewrap".into()),
            other => other,
        };
        let (deny_network, allow_unix_sockets) = match fields.text()?.as_str() {
            "allow" => (false, false),
            "deny" => (true, false),
            "deny-except-unix" => (true, true),
            other => return Err(format!("plan: unknown network {other:?}")),
        };
        let isolation = match fields.text()?.as_str() {
            "auto" => Isolation::Auto,
            "seccomp" => Isolation::Seccomp,
            other => return Err(format!("plan: unknown isolation {other:?}")),
        };
        let view = match fields.text()?.as_str() {
            "host" => View::Host,
            "session" => View::Session,
            other => return Err(format!("plan: unknown view {other:?}")),
        };
        let nproc = match fields.text()?.as_str() {
            "" => None,
            n => Some(
                n.parse::<u64>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("plan: not a positive process limit: {n:?}"))?,
            ),
        };
        let plan = Plan {
            backend,
            deny_network,
            allow_unix_sockets,
            isolation,
            view,
            nproc,
            writable: fields.list()?,
            hidden: fields.list()?,
            readable: fields.list()?,
            denied: fields.list()?,
            cgroups: fields.list()?,
            cgroup_limits: fields.list()?,
            command: fields.text()?,
            inside: false,
        };
        if let Some(bad) = plan
            .cgroup_limits
            .iter()
            .find(|limit| !limit.trim_start_matches('?').contains('='))
        {
            return Err(format!("plan: a cgroup limit is not NAME=VALUE: {bad:?}"));
        }
        if plan.view == View::Session && plan.backend == Backend::None {
            return Err("plan: the session view needs a sandbox backend".into());
        }
        Ok(plan)
    }

    /// The enumerated fields in their encoded words: backend, bubblewrap's path, network, isolation, view.
    pub fn words(&self) -> [&str; 5] {
        let (backend, path) = match &self.backend {
            Backend::None => ("none", ""),
            Backend::Landlock => ("landlock", ""),
            Backend::Bubblewrap(path) => ("bubblewrap", path.as_str()),
        };
        let network = match (self.deny_network, self.allow_unix_sockets) {
            (false, _) => "allow",
            (true, false) => "deny",
            (true, true) => "deny-except-unix",
        };
        let isolation = match self.isolation {
            Isolation::Auto => "auto",
            Isolation::Seccomp => "seccomp",
        };
        let view = match self.view {
            View::Host => "host",
            View::Session => "session",
        };
        [backend, path, network, isolation, view]
    }

    /// The plan's fields, as the host writes them (this one serves the tests).
    pub fn encode(&self, out: &mut Writer) {
        self.words().iter().for_each(|word| out.text(word));
        out.text(&self.nproc.map(|n| n.to_string()).unwrap_or_default());
        for list in [
            &self.writable,
            &self.hidden,
            &self.readable,
            &self.denied,
            &self.cgroups,
            &self.cgroup_limits,
        ] {
            out.list(list);
        }
        out.text(&self.command);
    }

    /// How a runner shows in ps: `shellring-runner [landlock|bubblewrap] -c <command>`.
    pub fn title(&self) -> String {
        let backend = match self.backend {
            Backend::None => "",
            Backend::Landlock => "landlock ",
            Backend::Bubblewrap(_) => "bubblewrap ",
        };
        format!("shellring-runner {backend}-c {}", self.command)
    }
}

pub enum Invocation {
    /// One command: its request frame is read from fd 3, the status socket (as a fork server's runner reads it).
    Run,
    Probe,
    /// A fork server on fd 3: forks a runner for each command sent there.
    Serve,
    /// Framed requests on stdin, framed events on stdout (see `stdio`): many commands over one byte stream.
    Stdio,
    /// A session sandbox on fd 3: builds the view of the plan framed on stdin around a fork server inside it.
    SessionServe,
    /// Reads one request frame on stdin and prints it decoded, as JSON: the host's encoder checked against this
    /// decoder.
    CheckRequest,
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

pub const USAGE: &str = "usage: shellring-runner --run   (fd 3: the status socket, on which the request frame comes)\n       shellring-runner --probe\n       shellring-runner --serve   (fd 3: the server socket)\n       shellring-runner --session --serve   (a session sandbox; fd 3: its socket; its plan framed on stdin)\n       shellring-runner --stdio   (framed requests on stdin, framed events on stdout)\n       shellring-runner --check-request   (a request frame on stdin, printed decoded)";

/// # Errors
/// A message naming the bad argument.
pub fn parse(args: &[String]) -> Result<Invocation, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["--run"] => Ok(Invocation::Run),
        ["--probe"] => Ok(Invocation::Probe),
        ["--serve"] => Ok(Invocation::Serve),
        ["--stdio"] => Ok(Invocation::Stdio),
        ["--session", "--serve"] => Ok(Invocation::SessionServe),
        ["--check-request"] => Ok(Invocation::CheckRequest),
        ["--serve-inside", fd] => fd
            .parse::<i32>()
            .ok()
            .filter(|&fd| fd > 2)
            .map(|host_proc| Invocation::ServeInside { host_proc })
            .ok_or_else(|| format!("--serve-inside: not a descriptor: {fd:?}")),
        ["--exec-limited", n, rest @ ..] => {
            let nproc = n
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("--exec-limited: not a positive count: {n:?}"))?;
            let ["--", argv @ ..] = rest else {
                return Err("--exec-limited N must be followed by -- and a command".into());
            };
            if argv.is_empty() {
                return Err("--exec-limited N -- needs a command".into());
            }
            Ok(Invocation::ExecLimited {
                nproc,
                argv: argv.iter().map(|a| a.to_string()).collect(),
            })
        }
        [] => Err("missing a mode".into()),
        [first, ..] => Err(format!("unknown argument {first:?}")),
    }
}

/// A session sandbox's plan, checked: it needs a backend and its namespaces.
///
/// # Errors
/// A message naming the problem.
pub fn session_plan(body: &[u8]) -> Result<Plan, String> {
    let mut fields = Fields::new(body);
    let plan = Plan::decode(&mut fields)?;
    if !fields.rest().is_empty() {
        return Err("plan: bytes after the plan".into());
    }
    if plan.backend == Backend::None || plan.isolation == Isolation::Seccomp {
        return Err("a session sandbox needs a sandbox backend and its namespaces".into());
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn full() -> Plan {
        Plan {
            command: "echo a=b".into(),
            backend: Backend::Bubblewrap("/usr/bin/bwrap".into()),
            writable: vec!["/w".into(), "/t".into()],
            deny_network: true,
            allow_unix_sockets: true,
            hidden: vec!["/s".into()],
            cgroups: vec!["/cg/a".into()],
            cgroup_limits: vec!["pids.max=9".into(), "?memory.max=1".into()],
            nproc: Some(40),
            isolation: Isolation::Auto,
            view: View::Session,
            readable: vec!["/a".into(), "/b".into()],
            denied: vec!["/etc/shadow".into()],
            inside: false,
        }
    }

    fn round_trip(plan: &Plan) -> Result<Plan, String> {
        let mut out = Writer::default();
        plan.encode(&mut out);
        let mut fields = Fields::new(&out.body);
        let decoded = Plan::decode(&mut fields)?;
        assert!(fields.rest().is_empty());
        Ok(decoded)
    }

    #[test]
    fn every_field_reads_back() {
        let plan = full();
        assert_eq!(round_trip(&plan).unwrap(), plan);
        let plain = Plan {
            command: "true".into(),
            ..Plan::default()
        };
        assert_eq!(round_trip(&plain).unwrap(), plain);
        let landlock = Plan {
            backend: Backend::Landlock,
            deny_network: true,
            isolation: Isolation::Seccomp,
            ..Plan::default()
        };
        assert_eq!(round_trip(&landlock).unwrap(), landlock);
    }

    #[test]
    fn bad_plans_are_refused_with_a_reason() {
        let decode = |fields: &[&str]| {
            let mut out = Writer::default();
            fields.iter().for_each(|f| out.text(f));
            Plan::decode(&mut Fields::new(&out.body)).err()
        };
        let ok = [
            "none", "", "allow", "auto", "host", "", "0", "0", "0", "0", "0", "0", "x",
        ];
        assert_eq!(decode(&ok), None);
        for (at, value, message) in [
            (0, "chroot", "plan: unknown backend \"chroot\""),
            (1, "/bin/bwrap", "plan: a path for no bubblewrap"),
            (2, "some", "plan: unknown network \"some\""),
            (3, "none", "plan: unknown isolation \"none\""),
            (4, "all", "plan: unknown view \"all\""),
            (5, "0", "plan: not a positive process limit: \"0\""),
            (5, "many", "plan: not a positive process limit: \"many\""),
            (
                4,
                "session",
                "plan: the session view needs a sandbox backend",
            ),
        ] {
            let mut fields = ok;
            fields[at] = value;
            assert_eq!(decode(&fields).as_deref(), Some(message), "{at} {value}");
        }
        let mut fields = ok;
        fields[0] = "bubblewrap";
        assert_eq!(
            decode(&fields).as_deref(),
            Some("plan: bubblewrap needs its path")
        );
        let mut fields = ok.to_vec();
        fields.splice(11..12, ["1", "pids.max"]);
        assert_eq!(
            decode(&fields).as_deref(),
            Some("plan: a cgroup limit is not NAME=VALUE: \"pids.max\"")
        );
    }

    #[test]
    fn a_session_sandbox_needs_a_backend_and_its_namespaces() {
        let body = |plan: &Plan| {
            let mut out = Writer::default();
            plan.encode(&mut out);
            out.body
        };
        let session = Plan {
            backend: Backend::Landlock,
            writable: vec!["/w".into()],
            ..Plan::default()
        };
        assert_eq!(session_plan(&body(&session)).unwrap(), session);
        for plan in [
            Plan::default(),
            Plan {
                isolation: Isolation::Seccomp,
                ..session
            },
        ] {
            assert_eq!(
                session_plan(&body(&plan)).err().as_deref(),
                Some("a session sandbox needs a sandbox backend and its namespaces")
            );
        }
    }

    #[test]
    fn titles_name_the_backend_and_the_command() {
        assert_eq!(full().title(), "shellring-runner bubblewrap -c echo a=b");
        assert_eq!(
            Plan {
                command: "true".into(),
                ..Plan::default()
            }
            .title(),
            "shellring-runner -c true"
        );
    }

    #[test]
    fn bad_invocations_are_refused() {
        for (list, message) in [
            (
                &["--exec-limited", "0", "--", "bash"][..],
                "--exec-limited: not a positive count: \"0\"",
            ),
            (
                &["--exec-limited", "5", "bash"][..],
                "--exec-limited N must be followed by -- and a command",
            ),
            (
                &["--exec-limited", "5", "--"][..],
                "--exec-limited N -- needs a command",
            ),
            (
                &["--serve-inside", "1"][..],
                "--serve-inside: not a descriptor: \"1\"",
            ),
            (
                &["--landlock", "-c", "x"][..],
                "unknown argument \"--landlock\"",
            ),
            (&["--probe", "--run"][..], "unknown argument \"--probe\""),
            (&[][..], "missing a mode"),
        ] {
            assert_eq!(
                parse(&args(list)).err().as_deref(),
                Some(message),
                "{list:?}"
            );
        }
    }

    #[test]
    fn modes_parse() {
        assert!(matches!(parse(&args(&["--run"])), Ok(Invocation::Run)));
        assert!(matches!(parse(&args(&["--probe"])), Ok(Invocation::Probe)));
        assert!(matches!(
            parse(&args(&["--session", "--serve"])),
            Ok(Invocation::SessionServe)
        ));
        assert!(matches!(
            parse(&args(&["--serve-inside", "5"])),
            Ok(Invocation::ServeInside { host_proc: 5 })
        ));
        match parse(&args(&["--exec-limited", "7", "--", "bash", "-c", "--rw"])) {
            Ok(Invocation::ExecLimited { nproc, argv }) => {
                assert_eq!(nproc, 7);
                assert_eq!(argv, ["bash", "-c", "--rw"]);
            }
            _ => panic!("not parsed as exec-limited"),
        }
    }
}
