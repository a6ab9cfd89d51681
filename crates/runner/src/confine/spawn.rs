//! Forks the command into a new session (its own process group, no controlling terminal), confines it as the plan
//! says, and reports a failure of any of those steps before the command could run.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::wait::waitpid;
use nix::unistd::{fork, ForkResult, Pid};

use seccompiler::BpfProgram;

use shellring_wire::plan::{Backend, Isolation, Plan, View};
use shellring_wire::stage;

use super::bwrap;
use super::landlock::{self, Ruleset};
use super::{caps, fds, idmap, keyring, limits, mount_ns, pid_ns, seccomp};
use crate::failure::{Failed, RunnerError};

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
/// bubblewrap's idmapped system trees could not be made (reported as that namespace step).
const STAGE_IDMAP: u32 = STAGE_NAMESPACE + mount_ns::STEPS.len() as u32 - 1;

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
    /// stdio is a terminal the runner opened: the command takes it as its controlling terminal.
    terminal: bool,
    /// bubblewrap's Landlock domain, enforced before it runs: the host's abstract unix sockets out of reach.
    bwrap_scope: Option<Ruleset>,
    /// A root runner's system trees seen as another user sees them, made before bubblewrap builds its view of them.
    bwrap_idmap: Option<idmap::SystemIdmap>,
}

/// # Errors
/// The stage and OS error text when preparing, forking, confining or exec'ing failed; nothing ran then.
pub fn command(plan: &Plan) -> Result<Spawned, RunnerError> {
    // Everything that allocates happens before the fork: after it, only async-signal-safe calls are allowed.
    let (layers, mut enforcement) = layers(plan)?;
    let argv_owned = bwrap::argv(plan, layers.bwrap_seccomp.as_ref().map(|fd| fd.as_raw_fd()))?;
    let mut argv: Vec<*const libc::c_char> = argv_owned.iter().map(|s| s.as_ptr()).collect();
    argv.push(std::ptr::null());
    let parent = nix::unistd::getpid();

    // The report pipe is close-on-exec: a successful exec closes it and the read below sees end-of-file.
    let (report_read, report_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)
        .map_err(|e| RunnerError::Setup(Failed::new(stage::PIPE, e as i32).detail()))?;
    // SAFETY: the child only calls async-signal-safe functions (no allocation, no locks) before exec or _exit.
    let pid = match unsafe { fork() } {
        Err(e) => {
            return Err(RunnerError::Setup(
                Failed::new(stage::FORK, e as i32).detail(),
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
                STAGE_NAMESPACE.. => Failed::naming(
                    stage::NAMESPACE,
                    errno,
                    *mount_ns::STEPS
                        .get((number - STAGE_NAMESPACE) as usize)
                        .unwrap_or(&"?"),
                ),
                STAGE_EXEC => Failed::naming(stage::EXEC, errno, argv_owned[0].to_string_lossy()),
                _ => Failed::new(token(number), errno),
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
        Some(seccomp::command_filter(plan.network_filter())?)
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
        terminal: plan.terminal,
        bwrap_scope: None,
        bwrap_idmap: None,
    };
    let enforcement = match &plan.backend {
        Backend::None => "none",
        // Inside bubblewrap's session sandbox the filter is installed here, beside the one the sandbox holds; the
        // sandbox's scope holds already.
        Backend::Bubblewrap(_) if plan.inside => {
            layers.filter = filter;
            landlock::bubblewrap_enforcement(landlock::abi(), plan.deny_network)
        }
        Backend::Bubblewrap(_) => {
            if let Some(program) = filter {
                layers.bwrap_seccomp = Some(seccomp::program_fd(&program)?);
            }
            let abi = landlock::abi();
            layers.bwrap_scope =
                Ruleset::abstract_unix_scope(abi).map_err(|e| format!("sandbox {e}"))?;
            layers.bwrap_idmap = idmap::prepare()?;
            landlock::bubblewrap_enforcement(abi, plan.deny_network)
        }
        Backend::Landlock => {
            if session && plan.isolation == Isolation::Seccomp {
                return Err(RunnerError::SandboxUnavailable(
                    Failed::new(stage::VIEW, 0).detail(),
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
    // A terminal job's terminal (its stdout: stdin may hold a long command) becomes its controlling terminal, so
    // ctrl-c, job control and /dev/tty work as on any terminal.
    if layers.terminal && libc::ioctl(1, libc::TIOCSCTTY, 0) != 0 {
        fail(report, STAGE_FDS, *libc::__errno_location());
    }
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
    if let Some(idmap) = &layers.bwrap_idmap {
        check(report, STAGE_IDMAP, idmap.enter());
    }
    if let Some(scope) = &layers.bwrap_scope {
        // bubblewrap sets no_new_privs itself for its filter; Landlock needs it first (or CAP_SYS_ADMIN).
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        check(report, STAGE_LANDLOCK, scope.restrict_self());
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

    #[test]
    fn an_idmap_failure_is_named_as_its_namespace_step() {
        assert_eq!(
            mount_ns::STEPS[(STAGE_IDMAP - STAGE_NAMESPACE) as usize],
            idmap::STEP
        );
    }
}
