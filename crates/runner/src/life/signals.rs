//! The signals the runner takes through a signalfd (child ended, asked to stop) instead of handlers.

use nix::sys::signal::{SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};

/// SIGCHLD, and the requests to stop that must end every descendant.
pub fn watched() -> SigSet {
    let mut set = SigSet::empty();
    for signal in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
    ] {
        set.add(signal);
    }
    set
}

/// Blocks the watched signals and returns a signalfd that receives them. Blocking happens before any fork, so no
/// SIGCHLD can be missed.
///
/// # Errors
/// The OS error of sigprocmask or signalfd.
pub fn take() -> nix::Result<SignalFd> {
    let set = watched();
    nix::sys::signal::sigprocmask(SigmaskHow::SIG_BLOCK, Some(&set), None)?;
    SignalFd::with_flags(&set, SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK)
}

/// The next pending signal number, if any.
pub fn next(fd: &SignalFd) -> Option<i32> {
    match fd.read_signal() {
        Ok(Some(info)) => Some(info.ssi_signo as i32),
        _ => None,
    }
}
