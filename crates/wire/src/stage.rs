//! The stable tokens of a step of starting the command, as a runner's `error` line reports one that failed: the token,
//! the errno and the OS's text for it, then (after a tab) what the step named, if anything (`error RUNNER_SPAWN cgroup
//! 22 Invalid argument`, `error RUNNER_SPAWN exec 2 No such file or directory\t/usr/bin/bwrap`). The host words each
//! token (src/contract/runner-failures.ts); the runner says no words of its own.

pub const EXEC: &str = "exec";
pub const CAPS: &str = "caps";
pub const LANDLOCK: &str = "landlock";
pub const PARENT_GONE: &str = "parent-gone";
pub const FDS: &str = "fds";
pub const CGROUP: &str = "cgroup";
/// Making a session's cgroup (the subject: its directory), or writing one of its files (the subject: the file).
pub const CGROUP_MKDIR: &str = "cgroup-mkdir";
pub const CGROUP_FILE: &str = "cgroup-file";
pub const NPROC: &str = "nproc";
pub const SECCOMP: &str = "seccomp";
pub const PID_NS: &str = "pid-ns";
/// A step of making the command's namespaces; the subject is the step.
pub const NAMESPACE: &str = "namespace";
/// No namespace was possible and the session view needs one (reported as `RUNNER_SANDBOX_UNAVAILABLE`).
pub const VIEW: &str = "view";
/// The runner's own plumbing around the command: its report or output pipes, its fork, its signalfd, the
/// command's stdio.
pub const PIPE: &str = "pipe";
pub const FORK: &str = "fork";
pub const SIGNALFD: &str = "signalfd";
pub const STDIO: &str = "stdio";

/// Every token, for the description the host is checked against.
pub const ALL: &[&str] = &[
    EXEC,
    CAPS,
    LANDLOCK,
    PARENT_GONE,
    FDS,
    CGROUP,
    CGROUP_MKDIR,
    CGROUP_FILE,
    NPROC,
    SECCOMP,
    PID_NS,
    NAMESPACE,
    VIEW,
    PIPE,
    FORK,
    SIGNALFD,
    STDIO,
];

/// The codes of a runner's own failures (the command did not run), as an `error` line carries them.
pub const REQUEST: &str = "RUNNER_REQUEST";
pub const SETUP: &str = "RUNNER_SETUP";
pub const SPAWN: &str = "RUNNER_SPAWN";
pub const SANDBOX_UNAVAILABLE: &str = "RUNNER_SANDBOX_UNAVAILABLE";
pub const CODES: &[&str] = &[REQUEST, SETUP, SPAWN, SANDBOX_UNAVAILABLE];
