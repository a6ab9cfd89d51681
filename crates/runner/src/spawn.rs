//! Forks the command into a new session (its own process group, no controlling terminal), confines it as the plan
//! says, and reports a failure of any of those steps before the command could run.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::wait::waitpid;
use nix::unistd::{fork, ForkResult, Pid};

use seccompiler::BpfProgram;

use crate::error::RunnerError;
use crate::landlock::{self, Ruleset};
use crate::plan::{Backend, Isolation, Plan, View};
use crate::{caps, fds, keyring, limits, mount_ns, pid_ns, seccomp, stage, view};

pub struct Spawned {
    pub pid: Pid,
    /// `none`, `full` or `partial`: what the confinement actually enforces on this kernel.
    pub enforcement: &'static str,
}

/// Steps of the child, reported through the pipe with their errno when they fail (each told to the host as a
/// `stage` token).
const STAGE_EXEC: u32 = 1;
const STAGE_CAPS: u32 = 2;
const STAGE_LANDLOCK: u32 = 3;
const STAGE_PARENT_GONE: u32 = 4;
const STAGE_FDS: u32 = 5;
const STAGE_CGROUP: u32 = 6;
const STAGE_NPROC: u32 = 7;
const STAGE_SECCOMP: u32 = 8;
/// Not a failure: no namespace was possible, so seccomp guards metadata instead (enforcement is partial).
const STAGE_FALLBACK: u32 = 9;
/// No namespace was possible and the session view needs one: the command must not run with a wider view.
const STAGE_UNAVAILABLE: u32 = 10;
/// The pid namespace's first process (or bash's) could not be forked.
const STAGE_PID_NS: u32 = 11;

/// A namespace step failed half-way: `STAGE_NAMESPACE + index into mount_ns::STEPS`.
const STAGE_NAMESPACE: u32 = 100;

/// Everything the child applies, prepared before the fork.
struct Layers {
    limits: limits::Prepared,
    namespace: Option<mount_ns::Prepared>,
    /// The session view: no namespace means no run (never a wider view).
    session: bool,
    /// Any sandbox: the command gets a keyring of its own.
    confined: bool,
    /// In a session sandbox: its namespaces are there already, so their absence is no fallback.
    inside: bool,
    ruleset: Option<Ruleset>,
    /// Applied when the namespace cannot be entered (Landlock only).
    fallback: Option<BpfProgram>,
    /// The keyring and network filter (Landlock); bubblewrap's comes through `bwrap_seccomp`.
    filter: Option<BpfProgram>,
    /// bubblewrap installs the filter itself, after its own setup (which needs sockets), from this fd.
    bwrap_seccomp: Option<OwnedFd>,
}

/// # Errors
/// The stage and OS error text when preparing, forking, confining or exec'ing failed; nothing ran then.
pub fn command(plan: &Plan) -> Result<Spawned, RunnerError> {
    // Everything that allocates happens before the fork: after it, only async-signal-safe calls are allowed.
    let (layers, mut enforcement) = layers(plan)?;
    let argv_owned = argv(plan, layers.bwrap_seccomp.as_ref().map(|fd| fd.as_raw_fd()))?;
    let mut argv: Vec<*const libc::c_char> = argv_owned.iter().map(|s| s.as_ptr()).collect();
    argv.push(std::ptr::null());
    let parent = nix::unistd::getpid();

    // The report pipe is close-on-exec: a successful exec closes it and the read below sees end-of-file.
    let (report_read, report_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)
        .map_err(|e| RunnerError::Setup(stage::Failed::new(stage::PIPE, e as i32).detail()))?;
    // SAFETY: the child only calls async-signal-safe functions (no allocation, no locks) before exec or _exit.
    let pid = match unsafe { fork() } {
        Err(e) => {
            return Err(RunnerError::Setup(
                stage::Failed::new(stage::FORK, e as i32).detail(),
            ))
        }
        Ok(ForkResult::Child) => {
            // SAFETY: we are the freshly forked child; argv is a NULL-terminated array of live C strings.
            unsafe { child(report_write.as_raw_fd(), argv.as_ptr(), &layers, parent) }
        }
        Ok(ForkResult::Parent { child }) => child,
    };
    drop(report_write);
    let report = loop {
        match read_report(&report_read) {
            Some((STAGE_FALLBACK, _)) => enforcement = "partial",
            other => break other,
        }
    };
    match report {
        None => Ok(Spawned { pid, enforcement }),
        Some((number, errno)) => {
            let _ = waitpid(pid, None);
            let failed = match number {
                STAGE_NAMESPACE.. => stage::Failed::naming(
                    stage::NAMESPACE,
                    errno,
                    *mount_ns::STEPS
                        .get((number - STAGE_NAMESPACE) as usize)
                        .unwrap_or(&"?"),
                ),
                STAGE_EXEC => {
                    stage::Failed::naming(stage::EXEC, errno, argv_owned[0].to_string_lossy())
                }
                _ => stage::Failed::new(token(number), errno),
            };
            Err(if number == STAGE_UNAVAILABLE {
                RunnerError::SandboxUnavailable(failed.detail())
            } else {
                RunnerError::Spawn(failed.detail())
            })
        }
    }
}

/// The token of a child's stage without a subject.
fn token(number: u32) -> &'static str {
    match number {
        STAGE_CAPS => stage::CAPS,
        STAGE_LANDLOCK => stage::LANDLOCK,
        STAGE_PARENT_GONE => stage::PARENT_GONE,
        STAGE_FDS => stage::FDS,
        STAGE_CGROUP => stage::CGROUP,
        STAGE_NPROC => stage::NPROC,
        STAGE_SECCOMP => stage::SECCOMP,
        STAGE_UNAVAILABLE => stage::VIEW,
        STAGE_PID_NS => stage::PID_NS,
        _ => stage::EXEC,
    }
}

/// The child's failure report (stage, errno), or None when exec succeeded and closed the pipe.
fn read_report(pipe: &OwnedFd) -> Option<(u32, i32)> {
    let mut report = [0u8; 8];
    let n = loop {
        match nix::unistd::read(pipe, &mut report) {
            Err(Errno::EINTR) => continue,
            other => break other.unwrap_or(0),
        }
    };
    (n == 8).then(|| {
        let stage = u32::from_ne_bytes(report[..4].try_into().expect("4 bytes"));
        let errno = i32::from_ne_bytes(report[4..].try_into().expect("4 bytes"));
        (stage, errno)
    })
}

fn layers(plan: &Plan) -> Result<(Layers, &'static str), RunnerError> {
    let confined = !matches!(plan.backend, Backend::None);
    let filter = if confined {
        Some(seccomp::command_filter(
            plan.deny_network.then_some(plan.allow_unix_sockets),
        )?)
    } else {
        None
    };
    // The rlimit binds only where the command runs in a user namespace (Landlock's, or a session sandbox's);
    // bubblewrap of its own applies it inside its own through the runner's exec wrapper (see argv).
    let nproc = if matches!(plan.backend, Backend::Landlock) || plan.inside {
        plan.nproc
    } else {
        None
    };
    let session = plan.view == View::Session;
    // A session sandbox joined its session's cgroups before its view made cgroupfs read-only: its runners are in.
    let cgroups: &[String] = if plan.inside { &[] } else { &plan.cgroups };
    let mut layers = Layers {
        limits: limits::prepare(cgroups, &plan.cgroup_limits, nproc)?,
        namespace: None,
        session,
        confined,
        inside: plan.inside,
        ruleset: None,
        fallback: None,
        filter: None,
        bwrap_seccomp: None,
    };
    let enforcement = match &plan.backend {
        Backend::None => "none",
        // Inside bubblewrap's session sandbox the filter is installed here, beside the one the sandbox holds.
        Backend::Bubblewrap(_) if plan.inside => {
            layers.filter = filter;
            "full"
        }
        Backend::Bubblewrap(_) => {
            if let Some(program) = filter {
                layers.bwrap_seccomp = Some(seccomp::program_fd(&program)?);
            }
            "full"
        }
        Backend::Landlock => {
            if session && plan.isolation == Isolation::Seccomp {
                return Err(RunnerError::SandboxUnavailable(
                    stage::Failed::new(stage::VIEW, 0).detail(),
                ));
            }
            let abi = landlock::abi();
            let policy = landlock::Policy::of(plan);
            layers.ruleset =
                Some(Ruleset::build(abi, &policy).map_err(|e| format!("sandbox {e}"))?);
            if plan.isolation == Isolation::Auto && !plan.inside {
                layers.namespace = Some(mount_ns::prepare(plan)?);
            }
            layers.fallback = Some(seccomp::fallback_filter()?);
            layers.filter = filter;
            if plan.isolation == Isolation::Seccomp {
                "partial"
            } else {
                landlock::enforcement(abi, plan.deny_network)
            }
        }
    };
    Ok((layers, enforcement))
}

fn argv(plan: &Plan, seccomp_fd: Option<RawFd>) -> Result<Vec<CString>, String> {
    let mut args: Vec<String> = Vec::new();
    if let (Backend::Bubblewrap(path), false) = (&plan.backend, plan.inside) {
        // Unprivileged, bubblewrap's own user namespace counts the command's processes apart from the host's; as
        // root no rlimit binds (the session's cgroup does).
        let mut wrapper = Vec::new();
        if let (Some(n), false) = (plan.nproc, rustix::process::geteuid().is_root()) {
            let me = own_path()?;
            wrapper.extend([me, "--exec-limited".into(), n.to_string(), "--".into()]);
        }
        args = bwrap_args(plan, path, seccomp_fd, wrapper.first().map(String::as_str));
        args.extend(wrapper);
    }
    args.extend(["bash".to_string(), "-c".to_string(), plan.command.clone()]);
    to_c(args)
}

/// The runner's own executable, which a bubblewrap sandbox runs inside.
///
/// # Errors
/// When the kernel cannot name it.
pub fn own_path() -> Result<String, String> {
    let me = std::env::current_exe().map_err(|e| format!("spawn: the runner's own path: {e}"))?;
    Ok(me.to_string_lossy().into_owned())
}

/// The arguments of NUL-free strings, for exec.
///
/// # Errors
/// When one holds a NUL byte.
pub fn to_c(args: Vec<String>) -> Result<Vec<CString>, String> {
    args.into_iter()
        .map(|a| CString::new(a).map_err(|_| "spawn: an argument contains a NUL byte".to_string()))
        .collect()
}

/// bubblewrap and its arguments up to the `--` before the program it runs: the plan's view, namespaces and filter
/// (`seccomp_fd`), with `runner` (the runner's own executable) shown read-only in the session view.
pub fn bwrap_args(
    plan: &Plan,
    path: &str,
    seccomp_fd: Option<RawFd>,
    runner: Option<&str>,
) -> Vec<String> {
    let mut args: Vec<String> = [
        path,
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    .map(String::from)
    .to_vec();
    let session = plan.view == View::Session;
    if session {
        bwrap_system(&mut args);
    } else {
        args.extend(["--ro-bind", "/", "/"].map(String::from));
    }
    args.extend(
        [
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--unshare-pid",
            "--unshare-ipc",
        ]
        .map(String::from),
    );
    // A fresh /proc is writable where the kernel's settings live; bubblewrap run by root leaves /proc/sys so.
    args.extend(
        [
            "--ro-bind",
            "/proc/sys",
            "/proc/sys",
            "--ro-bind-try",
            "/proc/sysrq-trigger",
            "/proc/sysrq-trigger",
        ]
        .map(String::from),
    );
    let emptied: Vec<&str> = if session {
        view::existing(view::EMPTIED).collect()
    } else {
        Vec::new()
    };
    for path in emptied.iter().copied().chain(
        plan.hidden
            .iter()
            .filter(|h| view::hidden_shown(plan, h))
            .map(String::as_str),
    ) {
        args.extend(["--tmpfs".to_string(), path.to_string()]);
    }
    if let (Some(me), true) = (runner, session) {
        args.extend(["--ro-bind".to_string(), me.to_string(), me.to_string()]);
    }
    for path in plan
        .readable
        .iter()
        .filter(|p| std::path::Path::new(p).exists())
    {
        args.extend(["--ro-bind".to_string(), path.clone(), path.clone()]);
    }
    for path in &plan.writable {
        args.extend(["--bind".to_string(), path.clone(), path.clone()]);
    }
    for (path, dir) in view::masks(plan) {
        if dir {
            args.extend([
                "--tmpfs".to_string(),
                path.clone(),
                "--remount-ro".to_string(),
                path,
            ]);
        } else {
            args.extend(["--ro-bind".to_string(), "/dev/null".to_string(), path]);
        }
    }
    // The emptied places stay empty: nothing written there would outlive the command, but read-only is read-only.
    for path in emptied {
        args.extend(["--remount-ro".to_string(), path.to_string()]);
    }
    if plan.deny_network {
        args.push("--unshare-net".into());
    }
    if let Some(fd) = seccomp_fd {
        args.extend(["--seccomp".to_string(), fd.to_string()]);
    }
    args.push("--".into());
    args
}

/// The operating system of the session view, read-only: each directory bound, each that is a symbolic link on the
/// host (a merged /usr) made the same link.
fn bwrap_system(args: &mut Vec<String>) {
    for dir in view::existing(view::SYSTEM) {
        match std::fs::read_link(dir) {
            Ok(target) => args.extend([
                "--symlink".to_string(),
                target.to_string_lossy().into_owned(),
                dir.to_string(),
            ]),
            Err(_) => args.extend(["--ro-bind".to_string(), dir.to_string(), dir.to_string()]),
        }
    }
    args.extend([
        "--ro-bind".to_string(),
        "/sys".to_string(),
        "/sys".to_string(),
    ]);
}

/// In the forked child: new session, death with the runner, default signal state, confinement, then exec.
/// Never returns.
///
/// # Safety
/// Must run in a freshly forked child; `argv` must be a NULL-terminated array of valid C strings.
unsafe fn child(
    report: RawFd,
    argv: *const *const libc::c_char,
    layers: &Layers,
    parent: Pid,
) -> ! {
    libc::setsid();
    // bash dies with the runner even when the runner is SIGKILLed; the runner's own sweep covers the rest.
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    if libc::getppid() != parent.as_raw() {
        fail(report, STAGE_PARENT_GONE, libc::ESRCH);
    }
    // The runner blocks signals for its signalfd and Rust ignores SIGPIPE; the command must start with neither.
    let mut empty: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut empty);
    libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
    for sig in [
        libc::SIGPIPE,
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGCHLD,
    ] {
        libc::signal(sig, libc::SIG_DFL);
    }
    check(report, STAGE_FDS, fds::close_above_stdio());
    if let Some(fd) = &layers.bwrap_seccomp {
        check(report, STAGE_FDS, fds::inherit(fd.as_raw_fd()));
    }
    // Cgroups are joined before any user namespace: inside one, the host's cgroup files are not ours to write.
    check(report, STAGE_CGROUP, layers.limits.join());
    if layers.confined {
        keyring::fresh();
    }
    let mut fallback = false;
    let mut inside = None;
    if let Some(namespace) = &layers.namespace {
        match namespace.enter() {
            Ok(()) => {}
            Err(f) if f.unavailable() && layers.session => fail(report, STAGE_UNAVAILABLE, f.errno),
            Err(f) if f.unavailable() => fallback = true,
            Err(f) => fail(report, STAGE_NAMESPACE + f.step as u32, f.errno),
        }
        // Entering a user namespace may change credentials, which clears the parent-death signal: set it again.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if !fallback {
            // From here on this is the pid namespace's first process; the process outside only mirrors its end.
            match pid_ns::split(report) {
                pid_ns::Status::Inside(fd) => inside = Some(fd),
                pid_ns::Status::Failed(errno) => fail(report, STAGE_PID_NS, errno),
            }
            if let Err(f) = mount_ns::mount_proc() {
                fail(report, STAGE_NAMESPACE + f.step as u32, f.errno);
            }
        }
    } else if layers.ruleset.is_some() && !layers.inside {
        fallback = true;
    }
    if fallback {
        note(report, STAGE_FALLBACK);
    }
    check(report, STAGE_NPROC, layers.limits.restrict());
    if let Some(ruleset) = &layers.ruleset {
        check(report, STAGE_CAPS, caps::drop_all());
        check(report, STAGE_LANDLOCK, ruleset.add_late_rules());
        check(report, STAGE_LANDLOCK, ruleset.restrict_self());
    }
    if let (true, Some(filter)) = (fallback, &layers.fallback) {
        check(report, STAGE_SECCOMP, seccomp::apply(filter));
    }
    if let Some(filter) = &layers.filter {
        check(report, STAGE_SECCOMP, seccomp::apply(filter));
    }
    if let Some(fd) = inside {
        if let Err(errno) = pid_ns::init(fd, report) {
            fail(report, STAGE_PID_NS, errno);
        }
    }
    libc::execvp(*argv, argv);
    fail(report, STAGE_EXEC, *libc::__errno_location());
}

/// # Safety
/// Async-signal-safe; for the forked child only.
unsafe fn check(report: RawFd, stage: u32, errno: i32) {
    if errno != 0 {
        fail(report, stage, errno);
    }
}

/// A record that is not a failure; the child goes on.
///
/// # Safety
/// Async-signal-safe; for the forked child only.
unsafe fn note(report: RawFd, stage: u32) {
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&stage.to_ne_bytes());
    libc::write(report, bytes.as_ptr().cast(), 8);
}

/// # Safety
/// Async-signal-safe; for the forked child only.
unsafe fn fail(report: RawFd, stage: u32, errno: i32) -> ! {
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&stage.to_ne_bytes());
    bytes[4..].copy_from_slice(&errno.to_ne_bytes());
    libc::write(report, bytes.as_ptr().cast(), 8);
    libc::_exit(127);
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::wait::WaitStatus;

    fn plan(command: &str, backend: Backend) -> Plan {
        Plan {
            command: command.into(),
            backend,
            ..Plan::default()
        }
    }

    #[test]
    fn runs_bash_in_its_own_session() {
        let spawned = command(&plan(
            "[ \"$(cut -d' ' -f6 /proc/$$/stat)\" -eq $$ ] && exit 7",
            Backend::None,
        ))
        .unwrap();
        assert_eq!(spawned.enforcement, "none");
        assert_eq!(
            waitpid(spawned.pid, None).unwrap(),
            WaitStatus::Exited(spawned.pid, 7)
        );
    }

    #[test]
    fn an_exec_failure_is_reported_with_its_stage() {
        let error = command(&plan(
            "true",
            Backend::Bubblewrap("/nonexistent/bwrap".into()),
        ))
        .err()
        .unwrap();
        assert_eq!(error.code(), "RUNNER_SPAWN");
        assert_eq!(
            error.to_string(),
            "exec 2 No such file or directory\t/nonexistent/bwrap"
        );
    }

    #[test]
    fn a_nul_byte_is_refused_before_forking() {
        let error = command(&plan("echo \0", Backend::None)).err().unwrap();
        assert_eq!(
            error,
            RunnerError::Spawn("spawn: an argument contains a NUL byte".into())
        );
    }
}
