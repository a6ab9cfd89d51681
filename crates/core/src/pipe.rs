//! Pipes for a child's stdout and stderr, made for the reactor: close-on-exec, the read end non-blocking
//! and grown so a fast writer rarely waits.

use std::os::fd::RawFd;
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::error::Error;

/// The pipe size asked for (capped by /proc/sys/fs/pipe-max-size).
#[cfg(target_os = "linux")]
const PIPE_SIZE: libc::c_int = 1024 * 1024;

/// Creates a pipe: both ends close-on-exec (a child started by another thread must not inherit them; the
/// spawner's dup2 onto fd 1/2 clears the flag on the copy), the read end non-blocking.
///
/// # Errors
/// The OS error of `pipe2`.
pub fn pipe() -> Result<(RawFd, RawFd), Error> {
    let fds = cloexec_pipe()?;
    // SAFETY: fcntl on fds we own; growing the pipe is best effort.
    unsafe {
        #[cfg(target_os = "linux")]
        libc::fcntl(fds[0], libc::F_SETPIPE_SZ, PIPE_SIZE);
        libc::fcntl(
            fds[0],
            libc::F_SETFL,
            libc::fcntl(fds[0], libc::F_GETFL) | libc::O_NONBLOCK,
        );
    }
    Ok((fds[0], fds[1]))
}

/// A pipe of the reactor's own, made as [`pipe`] makes one: its read end, its write end and its size in bytes (as
/// grown: past the user's pipe pages it stays one page). `None` where none can be made (out of descriptors).
#[cfg(target_os = "linux")]
pub fn owned() -> Option<(OwnedFd, OwnedFd, usize)> {
    let (read, write) = pipe().ok()?;
    // SAFETY: both fds were just created and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(read), OwnedFd::from_raw_fd(write)) };
    // SAFETY: F_GETPIPE_SZ reads a pipe's size and touches no memory of ours.
    let size = unsafe { libc::fcntl(read.as_raw_fd(), libc::F_GETPIPE_SZ) };
    Some((read, write, usize::try_from(size).unwrap_or(0)))
}

#[cfg(target_os = "linux")]
fn cloexec_pipe() -> Result<[RawFd; 2], Error> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Error::Io(std::io::Error::last_os_error().to_string()));
    }
    Ok(fds)
}

/// macOS has no pipe2: the flag is set right after. Commands run on Linux only, so no spawner races this there.
#[cfg(not(target_os = "linux"))]
fn cloexec_pipe() -> Result<[RawFd; 2], Error> {
    let mut fds = [0; 2];
    // SAFETY: pipe writes two fds into the array; fcntl on fds we own.
    unsafe {
        if libc::pipe(fds.as_mut_ptr()) != 0 {
            return Err(Error::Io(std::io::Error::last_os_error().to_string()));
        }
        for fd in fds {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
    Ok(fds)
}
