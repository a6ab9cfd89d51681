//! The runner's command line: which mode it runs in.

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
    /// Reads one request record on stdin and prints it decoded, as JSON: the host's encoder checked against this
    /// decoder.
    CheckRequest,
    /// Reads one request record on stdin and prints it as `--stdio` completes it with this host's paths (its read
    /// policy expanded here): the host's own expansion is checked against this one.
    CheckCompleted,
    /// Prints the description of every format the host and the runner exchange (`shellring_wire::spec`).
    Wire,
    /// The fork server inside a bubblewrap session sandbox: its runners are `inside`; `host_proc` is the host's
    /// /proc, opened before bubblewrap hid it.
    /// `domains`: make the proxy's listener in bubblewrap's network namespace and hand it over first.
    ServeInside {
        host_proc: i32,
        domains: bool,
    },
    /// Inside bubblewrap's user namespace: set the process-count limit, then exec the rest (bash).
    ExecLimited {
        nproc: u64,
        argv: Vec<String>,
    },
}

pub const USAGE: &str = "usage: shellring-runner --run   (fd 3: the status socket, on which the request frame comes)\n       shellring-runner --probe\n       shellring-runner --serve   (fd 3: the server socket)\n       shellring-runner --session --serve   (a session sandbox; fd 3: its socket; its plan framed on stdin)\n       shellring-runner --stdio   (framed requests on stdin, framed events on stdout)\n       shellring-runner --check-request   (a request record on stdin, printed decoded)\n       shellring-runner --check-request --completed   (the same, completed with this host's paths)\n       shellring-runner --wire   (the formats the host and the runner exchange, described)";

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
        ["--check-request", "--completed"] => Ok(Invocation::CheckCompleted),
        ["--wire"] => Ok(Invocation::Wire),
        ["--serve-inside", fd, flags @ ..] if flags.is_empty() || flags == ["--domains"] => fd
            .parse::<i32>()
            .ok()
            .filter(|&fd| fd > 2)
            .map(|host_proc| Invocation::ServeInside {
                host_proc,
                domains: !flags.is_empty(),
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
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
            Ok(Invocation::ServeInside {
                host_proc: 5,
                domains: false
            })
        ));
        assert!(matches!(
            parse(&args(&["--serve-inside", "5", "--domains"])),
            Ok(Invocation::ServeInside {
                host_proc: 5,
                domains: true
            })
        ));
        assert!(parse(&args(&["--serve-inside", "5", "--other"])).is_err());
        match parse(&args(&["--exec-limited", "7", "--", "bash", "-c", "--rw"])) {
            Ok(Invocation::ExecLimited { nproc, argv }) => {
                assert_eq!(nproc, 7);
                assert_eq!(argv, ["bash", "-c", "--rw"]);
            }
            _ => panic!("not parsed as exec-limited"),
        }
    }
}
