//! One output pipe of a capture on a reactor thread, and how it is read: a read at a time into the capture, what the
//! pipe holds moved to the spill file unread where memory would not keep it, or read whole as the capture ends.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;

use crate::capture::Stream;
use crate::shared::SharedCapture;

/// A pipe the reactor reads, and the capture its bytes go to.
pub(super) struct Pipe {
    pub(super) fd: OwnedFd,
    pub(super) id: u64,
    pub(super) stream: Stream,
    pub(super) capture: Arc<SharedCapture>,
    /// In the ready queue: it had data when last read.
    pub(super) queued: bool,
}

pub(super) enum Read {
    /// Read this many bytes; there may be more.
    More(usize),
    /// Nothing to read now.
    Empty,
    /// End-of-file, an error, or a finished capture: the pipe is done.
    Ended,
}

pub(super) fn read_once(pipe: &Pipe, buf: &mut [u8], max: usize) -> Read {
    loop {
        let max = max.min(buf.len());
        // SAFETY: buf is a live, writable buffer of at least `max` bytes; the fd is owned by `pipe`.
        let n = unsafe { libc::read(pipe.fd.as_raw_fd(), buf.as_mut_ptr().cast(), max) };
        if n > 0 {
            // Bytes that arrive after the capture finished belong to no result; the pipe is abandoned.
            return if pipe
                .capture
                .write_from_pipe(pipe.stream, &buf[..n as usize])
            {
                Read::More(n as usize)
            } else {
                Read::Ended
            };
        }
        if n == 0 {
            return Read::Ended;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) => return Read::Empty,
            _ => return Read::Ended,
        }
    }
}

/// Moves what the pipe holds into the spill file without reading it, or drops what memory would not keep (see
/// `SharedCapture::take_unread`); `None` to read as usual.
#[cfg(target_os = "linux")]
pub(super) fn take_unread(
    pipe: &Pipe,
    null: Option<&std::fs::File>,
    buf: &mut [u8],
) -> Option<Read> {
    use std::os::fd::AsFd;
    let null = null?;
    let waiting = crate::pipe_moves::waiting(pipe.fd.as_fd());
    let taken =
        pipe.capture
            .take_unread(pipe.stream, pipe.fd.as_fd(), waiting, null.as_fd(), buf)?;
    Some(if taken {
        Read::More(waiting)
    } else {
        Read::Ended
    })
}

#[cfg(not(target_os = "linux"))]
pub(super) fn take_unread(_: &Pipe, _: Option<&std::fs::File>, _: &mut [u8]) -> Option<Read> {
    None
}

/// Reads every byte the pipe holds right now (and no more: a live writer could otherwise keep this going).
pub(super) fn read_available(pipe: &Pipe, buf: &mut [u8]) {
    let mut held: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int; the fd is owned by `pipe`.
    if unsafe { libc::ioctl(pipe.fd.as_raw_fd(), libc::FIONREAD, &mut held) } != 0 {
        return;
    }
    let mut left = held.max(0) as usize;
    while left > 0 {
        match read_once(pipe, buf, left) {
            Read::More(n) => left = left.saturating_sub(n),
            Read::Empty | Read::Ended => return,
        }
    }
}
