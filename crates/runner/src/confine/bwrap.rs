//! bubblewrap's command line for a plan: the view, the namespaces and the filter it builds around the command (or
//! around a session sandbox's server).

use std::ffi::CString;
use std::os::fd::RawFd;

use shellring_wire::plan::{Backend, Plan, View};

use super::view;

/// The command's argv: `bash -c <command>`, behind bubblewrap's arguments when the plan has it.
pub fn argv(plan: &Plan, seccomp_fd: Option<RawFd>) -> Result<Vec<CString>, String> {
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
    let mut args: Vec<String> = [path, "--die-with-parent", "--cap-drop", "ALL"]
        .map(String::from)
        .to_vec();
    // A new session keeps the command from the terminal of whoever started it (TIOCSTI could type into it); a
    // terminal job's terminal is its own, opened for it, which it must keep as its controlling terminal.
    if !plan.terminal {
        args.push("--new-session".into());
    }
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
    if plan.own_network() {
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
