//! One command's confinement as the runner takes it (src/executor/wire/plan.ts writes it): positional fields of the
//! request record — backend (`none`, `landlock`, `bubblewrap`), bubblewrap's path (empty otherwise), network
//! (`allow`, `deny`, `deny-except-unix`, `domains`), isolation (`auto`, `seccomp`), view (`host`, `session`), the process limit
//! (empty: none), the lists writable, hidden, readable, denied, cgroups and cgroup limits, then the command. A
//! session sandbox reads the same fields (its command empty) as a record on its stdin.

use crate::fields::{Fields, Sink, Writer};

#[derive(Default, Debug, PartialEq, Eq, Clone)]
pub enum Backend {
    /// No confinement: the command runs with the runner's own authority.
    #[default]
    None,
    /// Capabilities dropped, no_new_privs, then a Landlock ruleset.
    Landlock,
    /// bubblewrap at the given path, always with every capability dropped, a new session and die-with-parent.
    Bubblewrap(String),
}

#[derive(Default, Debug, PartialEq, Eq, Clone)]
pub struct Plan {
    pub command: String,
    pub backend: Backend,
    pub writable: Vec<String>,
    pub deny_network: bool,
    /// With the network denied, unix sockets may still be made and connected (any named socket the command sees).
    pub allow_unix_sockets: bool,
    /// Network by name: the session's own network namespace with only loopback, whose one way out is a listener
    /// made inside it and handed to the host's proxy (only inside a session sandbox).
    pub domains: bool,
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
    /// What a confined command may read: the host's files, or the session view.
    pub view: View,
    /// Paths shown read-only: in the session view its only data; in both views bound back below a hidden directory.
    pub readable: Vec<String>,
    /// Paths whose content a confined command never sees (a file reads empty, a directory is empty).
    pub denied: Vec<String>,
    /// Run inside a session sandbox: its namespaces, view, cgroups and, with bubblewrap, seccomp filter are in place
    /// already; the command gets only its own Landlock ruleset, filter and limits. Set by the sandbox's fork server,
    /// never by a request (it is not on the wire).
    pub inside: bool,
    /// The command runs on a terminal the runner opened (the request's `terminal`): its stdio is that terminal's
    /// other side, which it takes as its controlling terminal. Not on the wire as part of the plan.
    pub terminal: bool,
}

/// Which sockets a confined command may make.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NetFilter {
    /// Netlink only (and unix sockets with `allow_unix`).
    Deny { allow_unix: bool },
    /// Netlink and TCP over IPv4 or IPv6 (only loopback exists in its namespace); no UDP, raw, packet or unix socket.
    Domains,
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

/// The words of each enumerated field, in the order the host lists them.
pub const BACKENDS: &[&str] = &["none", "landlock", "bubblewrap"];
/// The port of the proxy's listener on a domains-mode namespace's 127.0.0.1 (HTTP, CONNECT and SOCKS5 alike).
pub const PROXY_PORT: u16 = 3128;

pub const NETWORKS: &[&str] = &["allow", "deny", "deny-except-unix", "domains"];
pub const ISOLATIONS: &[&str] = &["auto", "seccomp"];
pub const VIEWS: &[&str] = &["host", "session"];

impl Plan {
    /// Reads the plan's fields off `fields`.
    ///
    /// # Errors
    /// A message naming the malformed field.
    pub fn decode(fields: &mut Fields<'_>) -> Result<Plan, String> {
        let backend = fields.text()?;
        if !BACKENDS.contains(&backend.as_str()) {
            return Err(format!("plan: unknown backend {backend:?}"));
        }
        let path = fields.text()?;
        let backend = match (backend.as_str(), path.is_empty()) {
            ("none", true) => Backend::None,
            ("landlock", true) => Backend::Landlock,
            ("bubblewrap", false) => Backend::Bubblewrap(path),
            ("bubblewrap", true) => return Err("plan: bubblewrap needs its path".into()),
            _ => return Err("plan: a path for no bubblewrap".into()),
        };
        let (deny_network, allow_unix_sockets, domains) = match fields.text()?.as_str() {
            "allow" => (false, false, false),
            "deny" => (true, false, false),
            "deny-except-unix" => (true, true, false),
            "domains" => (false, false, true),
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
            domains,
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
            terminal: false,
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
            Backend::None => (BACKENDS[0], ""),
            Backend::Landlock => (BACKENDS[1], ""),
            Backend::Bubblewrap(path) => (BACKENDS[2], path.as_str()),
        };
        let network = match (self.deny_network, self.allow_unix_sockets, self.domains) {
            (false, _, true) => NETWORKS[3],
            (false, _, false) => NETWORKS[0],
            (true, false, _) => NETWORKS[1],
            (true, true, _) => NETWORKS[2],
        };
        let isolation = ISOLATIONS[self.isolation as usize];
        let view = VIEWS[self.view as usize];
        [backend, path, network, isolation, view]
    }

    /// Writes the plan's fields, each named as the host names it.
    pub fn encode(&self, out: &mut impl Sink) {
        // Every field is named here (a new one fails to compile until it is): `inside` never travels, and `terminal`
        // travels as the request's.
        let Plan {
            command,
            backend: _,
            writable,
            deny_network: _,
            allow_unix_sockets: _,
            domains: _,
            hidden,
            cgroups,
            cgroup_limits,
            nproc,
            isolation: _,
            view: _,
            readable,
            denied,
            inside: _,
            terminal: _,
        } = self;
        let [backend, path, network, isolation, view] = self.words();
        out.text("plan.backend", backend);
        out.text("plan.bwrapPath", path);
        out.text("plan.network", network);
        out.text("plan.isolation", isolation);
        out.text("plan.view", view);
        out.count("plan.nproc", *nproc);
        out.list("plan.writable", writable);
        out.list("plan.hidden", hidden);
        out.list("plan.readable", readable);
        out.list("plan.denied", denied);
        out.list("plan.cgroups", cgroups);
        out.list("plan.cgroupLimits", cgroup_limits);
        out.text("command", command);
    }

    /// The command has a network namespace of its own (none, or only loopback with the proxy's listener).
    pub fn own_network(&self) -> bool {
        self.deny_network || self.domains
    }

    /// The seccomp network filter's argument: `None` with the network allowed, else whether unix sockets may be made
    /// and, in domains mode, loopback TCP.
    pub fn network_filter(&self) -> Option<NetFilter> {
        // Outside its session's sandbox a domains-mode command has no way out: no socket but netlink either.
        if self.domains && self.inside {
            Some(NetFilter::Domains)
        } else if self.domains {
            Some(NetFilter::Deny { allow_unix: false })
        } else if self.deny_network {
            Some(NetFilter::Deny {
                allow_unix: self.allow_unix_sockets,
            })
        } else {
            None
        }
    }

    /// A session sandbox's plan as the record it reads on stdin.
    pub fn session_record(&self) -> Vec<u8> {
        let mut out = Writer::default();
        self.encode(&mut out);
        crate::fields::framed(&out.body)
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

    fn full() -> Plan {
        Plan {
            command: "echo a=b".into(),
            backend: Backend::Bubblewrap("/usr/bin/bwrap".into()),
            writable: vec!["/w".into(), "/t".into()],
            deny_network: true,
            allow_unix_sockets: true,
            domains: false,
            hidden: vec!["/s".into()],
            cgroups: vec!["/cg/a".into()],
            cgroup_limits: vec!["pids.max=9".into(), "?memory.max=1".into()],
            nproc: Some(40),
            isolation: Isolation::Auto,
            view: View::Session,
            readable: vec!["/a".into(), "/b".into()],
            denied: vec!["/etc/shadow".into()],
            inside: false,
            terminal: false,
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
        let domains = Plan {
            backend: Backend::Landlock,
            domains: true,
            ..Plan::default()
        };
        assert_eq!(round_trip(&domains).unwrap(), domains);
        assert_eq!(domains.words()[2], "domains");
    }

    #[test]
    fn a_domains_command_gets_tcp_only_inside_its_session_sandbox() {
        let mut plan = Plan {
            backend: Backend::Landlock,
            domains: true,
            ..Plan::default()
        };
        assert!(plan.own_network());
        assert_eq!(
            plan.network_filter(),
            Some(NetFilter::Deny { allow_unix: false })
        );
        plan.inside = true;
        assert_eq!(plan.network_filter(), Some(NetFilter::Domains));
    }

    #[test]
    fn bad_plans_are_refused_with_a_reason() {
        let decode = |fields: &[&str]| {
            let mut out = Vec::new();
            for field in fields {
                out.extend_from_slice(field.as_bytes());
                out.push(0);
            }
            Plan::decode(&mut Fields::new(&out)).err()
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
        let body = |plan: &Plan| plan.session_record()[4..].to_vec();
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
}
