//! Forks the command into a new session (its own process group, no controlling terminal), confines it as the plan
//! says, and reports a failure of any of those steps before the command could run.

use std::ffi::CString;

use crate::caps;
use crate::landlock::{self, Ruleset};
use crate::plan::{Backend, Plan};

pub struct Spawned {
    pub pid: libc::pid_t,
    /// `none`, `full` or `partial`: what the confinement actually enforces on this kernel.
    pub enforcement: &'static str,
}

/// Steps of the child, reported with their errno when they fail.
const STAGE_EXEC: u32 = 1;
const STAGE_CAPS: u32 = 2;
const STAGE_LANDLOCK: u32 = 3;

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

    // The report pipe is close-on-exec: a successful exec closes it and the read below sees end-of-file.
    let mut pipe = [0; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("spawn: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: the child only calls async-signal-safe functions before exec or _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let err = std::io::Error::last_os_error();
        unsafe {
            libc::close(pipe[0]);
            libc::close(pipe[1]);
        }
        return Err(format!("spawn: {err}"));
    }
    if pid == 0 {
        unsafe { child(pipe[1], argv.as_ptr(), ruleset.as_ref(), matches!(plan.backend, Backend::Landlock)) }
    }
    unsafe { libc::close(pipe[1]) };
    let mut report = [0u8; 8];
    let n = loop {
        // SAFETY: report is a live 8-byte buffer.
        let n = unsafe { libc::read(pipe[0], report.as_mut_ptr().cast(), 8) };
        if n < 0 && crate::status::errno() == libc::EINTR {
            continue;
        }
        break n;
    };
    unsafe { libc::close(pipe[0]) };
    if n == 8 {
        let stage = u32::from_ne_bytes(report[..4].try_into().expect("4 bytes"));
        let errno = i32::from_ne_bytes(report[4..].try_into().expect("4 bytes"));
        let mut status = 0;
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let what = match stage {
            STAGE_CAPS => "sandbox drop capabilities".to_string(),
            STAGE_LANDLOCK => "sandbox landlock_restrict_self".to_string(),
            _ => format!("spawn {}", argv_owned[0].to_string_lossy()),
        };
        return Err(format!("{what}: {}", std::io::Error::from_raw_os_error(errno)));
    }
    Ok(Spawned { pid, enforcement })
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

/// In the forked child: new session, default signal state, confinement, then exec. Never returns.
unsafe fn child(
    report: libc::c_int,
    argv: *const *const libc::c_char,
    ruleset: Option<&Ruleset>,
    drop_caps: bool,
) -> ! {
    libc::setsid();
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

unsafe fn fail(report: libc::c_int, stage: u32, errno: i32) -> ! {
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&stage.to_ne_bytes());
    bytes[4..].copy_from_slice(&errno.to_ne_bytes());
    libc::write(report, bytes.as_ptr().cast(), 8);
    libc::_exit(127);
}
