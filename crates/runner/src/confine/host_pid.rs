//! The pids the host sees. A session sandbox's processes live in a pid namespace of their own, where the kernel
//! names them by pids the host knows nothing of; the runners there report theirs through the host's /proc, opened
//! by the sandbox before its namespace hid it (and never passed to a command: its runner closes every descriptor).

use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

use rustix::fs::{Mode, OFlags};

static HOST_PROC: OnceLock<OwnedFd> = OnceLock::new();

/// Opens the host's /proc, to be kept across the sandbox's namespaces (and, for bubblewrap, its exec).
///
/// # Errors
/// The OS error of the open.
pub fn open() -> std::io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        "/proc",
        OFlags::PATH | OFlags::DIRECTORY,
        Mode::empty(),
    )?)
}

/// Keeps `fd` as the host's /proc for this process and the runners it forks.
pub fn keep(fd: OwnedFd) {
    let _ = HOST_PROC.set(fd);
}

/// Keeps the descriptor `fd`, inherited from the sandbox's builder, as the host's /proc.
pub fn adopt(fd: RawFd) {
    // SAFETY: the builder passed this descriptor to us alone; nothing else in this process owns it.
    keep(unsafe { OwnedFd::from_raw_fd(fd) });
}

fn host_proc() -> Option<BorrowedFd<'static>> {
    HOST_PROC.get().map(AsFd::as_fd)
}

/// This process's pid as the host sees it (its own pid outside a sandbox).
pub fn own() -> i32 {
    let own = nix::unistd::getpid().as_raw();
    let Some(proc) = host_proc() else { return own };
    rustix::fs::readlinkat(proc, "self", Vec::new())
        .ok()
        .and_then(|link| link.to_str().ok().and_then(|s| s.parse().ok()))
        .unwrap_or(own)
}

/// The host's pid of `child`, this process's only child (its own pid outside a sandbox).
pub fn only_child(child: i32) -> i32 {
    let Some(proc) = host_proc() else {
        return child;
    };
    let Ok(file) = rustix::fs::openat(
        proc,
        "thread-self/children",
        OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return child;
    };
    let mut buf = [0u8; 64];
    let n = rustix::io::read(&file, &mut buf).unwrap_or(0);
    let text = std::str::from_utf8(&buf[..n]).unwrap_or("");
    let mut pids = text
        .split_whitespace()
        .filter_map(|p| p.parse::<i32>().ok());
    match (pids.next(), pids.next()) {
        (Some(pid), None) => pid,
        _ => child,
    }
}
