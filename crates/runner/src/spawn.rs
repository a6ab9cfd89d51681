//! Forks the command into a new session (its own process group, no controlling terminal), confines it as the plan
//! says, and reports a failure of any of those steps before the command could run.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::wait::waitpid;
use nix::unistd::{fork, ForkResult, Pid};

use crate::caps;
use crate::landlock::{self, Ruleset};
use crate::plan::{Backend, Plan};

pub struct Spawned {
    pub pid: Pid,
    /// `none`, `full` or `partial`: what the confinement actually enforces on this kernel.
    pub enforcement: &'static str,
}

/// Steps of the child, reported with their errno when they fail.
const STAGE_EXEC: u32 = 1;
const STAGE_CAPS: u32 = 2;
const STAGE_LANDLOCK: u32 = 3;
const STAGE_PARENT_GONE: u32 = 4;

/// # Errors
/// The stage and OS error text when preparing, forking, confining or exec'ing failed; nothing ran then.
pub fn command(plan: &Plan) -> Result<Spawned, String> {
    // Everything that allocates happens before the fork: after it, only async-signal-safe calls are allowed.
    let argv_owned = argv(plan)?;
    let mut argv: Vec<*const libc::c_char> = argv_owned.iter().map(|s| s.as_ptr()).collect();
    argv.push(std::ptr::null());
    let (ruleset, enforcement) = match &plan.backend {
        Backend::None => (None, "none"),
        Backend::Bubblewrap(_) => (None, "full"),
        Backend::Landlock => {
            let abi = landlock::abi();
            let policy = landlock::Policy { writable: plan.writable.clone(), deny_network: plan.deny_network };
            let ruleset = Ruleset::build(abi, &policy).map_err(|e| format!("sandbox {e}"))?;
            (Some(ruleset), landlock::enforcement(abi, plan.deny_network))
        }
    };
    let parent = nix::unistd::getpid();

    // The report pipe is close-on-exec: a successful exec closes it and the read below sees end-of-file.
    let (report_read, report_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(|e| format!("spawn: {e}"))?;
    // SAFETY: the child only calls async-signal-safe functions (no allocation, no locks) before exec or _exit.
    let pid = match unsafe { fork() } {
        Err(e) => return Err(format!("spawn: {e}")),
        Ok(ForkResult::Child) => {
            let landlock = matches!(plan.backend, Backend::Landlock);
            // SAFETY: we are the freshly forked child; argv is a NULL-terminated array of live C strings.
            unsafe { child(report_write.as_raw_fd(), argv.as_ptr(), ruleset.as_ref(), landlock, parent) }
        }
        Ok(ForkResult::Parent { child }) => child,
    };
    drop(report_write);
    match read_report(report_read) {
        None => Ok(Spawned { pid, enforcement }),
        Some((stage, errno)) => {
            let _ = waitpid(pid, None);
            let what = match stage {
                STAGE_CAPS => "sandbox drop capabilities".to_string(),
                STAGE_LANDLOCK => "sandbox landlock_restrict_self".to_string(),
                STAGE_PARENT_GONE => "spawn: the runner ended before the command started".to_string(),
                _ => format!("spawn {}", argv_owned[0].to_string_lossy()),
            };
            Err(format!("{what}: {}", std::io::Error::from_raw_os_error(errno)))
        }
    }
}

/// The child's failure report (stage, errno), or None when exec succeeded and closed the pipe.
fn read_report(pipe: OwnedFd) -> Option<(u32, i32)> {
    let mut report = [0u8; 8];
    let n = loop {
        match nix::unistd::read(&pipe, &mut report) {
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

fn argv(plan: &Plan) -> Result<Vec<CString>, String> {
    let mut args: Vec<String> = Vec::new();
    if let Backend::Bubblewrap(path) = &plan.backend {
        args.extend([path.as_str(), "--die-with-parent", "--new-session", "--cap-drop", "ALL"].map(String::from));
        args.extend(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"].map(String::from));
        for path in &plan.writable {
            args.extend(["--bind".to_string(), path.clone(), path.clone()]);
        }
        if plan.deny_network {
            args.push("--unshare-net".into());
        }
        args.push("--".into());
    }
    args.extend(["bash".to_string(), "-c".to_string(), plan.command.clone()]);
    args.into_iter()
        .map(|a| CString::new(a).map_err(|_| "spawn: an argument contains a NUL byte".to_string()))
        .collect()
}

/// In the forked child: new session, death with the runner, default signal state, confinement, then exec.
/// Never returns.
///
/// # Safety
/// Must run in a freshly forked child; `argv` must be a NULL-terminated array of valid C strings.
unsafe fn child(
    report: RawFd,
    argv: *const *const libc::c_char,
    ruleset: Option<&Ruleset>,
    drop_caps: bool,
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
    for sig in [libc::SIGPIPE, libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGCHLD] {
        libc::signal(sig, libc::SIG_DFL);
    }
    if drop_caps {
        let errno = caps::drop_all();
        if errno != 0 {
            fail(report, STAGE_CAPS, errno);
        }
    }
    if let Some(ruleset) = ruleset {
        let errno = ruleset.restrict_self();
        if errno != 0 {
            fail(report, STAGE_LANDLOCK, errno);
        }
    }
    libc::execvp(*argv, argv);
    fail(report, STAGE_EXEC, *libc::__errno_location());
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
        Plan { command: command.into(), backend, writable: Vec::new(), deny_network: false }
    }

    #[test]
    fn runs_bash_in_its_own_session() {
        let spawned = command(&plan("[ \"$(cut -d' ' -f6 /proc/$$/stat)\" -eq $$ ] && exit 7", Backend::None)).unwrap();
        assert_eq!(spawned.enforcement, "none");
        assert_eq!(waitpid(spawned.pid, None).unwrap(), WaitStatus::Exited(spawned.pid, 7));
    }

    #[test]
    fn an_exec_failure_is_reported_with_its_stage() {
        let error = command(&plan("true", Backend::Bubblewrap("/nonexistent/bwrap".into()))).err().unwrap();
        assert!(error.starts_with("spawn /nonexistent/bwrap: No such file or directory"), "{error}");
    }

    #[test]
    fn a_nul_byte_is_refused_before_forking() {
        let error = command(&plan("echo \0", Backend::None)).err().unwrap();
        assert_eq!(error, "spawn: an argument contains a NUL byte");
    }
}
