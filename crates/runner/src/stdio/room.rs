//! When `--stdio` writes to its stream again after the stream was full. A pipe is writable again as soon as its reader
//! takes one read's worth (sshd takes 32 KiB at a time), so refilling at once wakes this process for every such read,
//! a wake per 32 KiB; while the pipe still holds most of its capacity, the reader has work for longer than a short
//! rest, so refilling after one moves several of its reads' room at once and never leaves it idle.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

use super::splice::queued;

/// How long a refill waits while the stream is nearly full: less than the reader takes to empty three quarters of a
/// 1 MiB pipe even at a gigabyte a second.
const REST: Duration = Duration::from_micros(500);

pub struct Room {
    /// The stream's capacity in bytes, when it is a pipe; rests apply only then (a socket says nothing of its room).
    capacity: Option<usize>,
    /// Writes wait until then.
    until: Option<Instant>,
}

impl Room {
    /// For the stream `fd`, after its capacity was set.
    pub fn of(fd: BorrowedFd<'_>) -> Room {
        // SAFETY: F_GETPIPE_SZ takes no pointer; the fd is borrowed and open.
        let capacity = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) };
        Room {
            capacity: usize::try_from(capacity).ok().filter(|&c| c > 0),
            until: None,
        }
    }

    /// How long writes still wait, if they do.
    pub fn rest_left(&mut self, now: Instant) -> Option<Duration> {
        let left = self.until.map(|until| until.saturating_duration_since(now));
        if left.is_some_and(|left| left.is_zero()) {
            self.until = None;
            return None;
        }
        left
    }

    /// The full stream `fd` became writable: rests first when three quarters of it are still waiting to be read.
    pub fn writable(&mut self, fd: BorrowedFd<'_>, now: Instant) {
        let Some(capacity) = self.capacity else {
            return;
        };
        if queued(fd).is_some_and(|held| held >= capacity / 4 * 3) {
            self.until = Some(now + REST);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    fn fill(write: BorrowedFd<'_>) -> usize {
        let chunk = [0u8; 4096];
        let mut n = 0;
        while let Ok(m) = nix::unistd::write(write, &chunk) {
            n += m;
        }
        n
    }

    #[test]
    fn rests_only_while_most_of_the_pipe_waits() {
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_NONBLOCK).unwrap();
        // As the stream's: 1 MiB where the limit allows.
        let _ = nix::fcntl::fcntl(&write, nix::fcntl::FcntlArg::F_SETPIPE_SZ(1 << 20));
        let mut room = Room::of(write.as_fd());
        let capacity = room.capacity.unwrap();
        assert_eq!(fill(write.as_fd()), capacity);
        let now = Instant::now();
        // The reader took an eighth: most of the pipe still waits.
        let mut buf = vec![0u8; capacity / 8];
        assert_eq!(nix::unistd::read(&read, &mut buf).unwrap(), capacity / 8);
        room.writable(write.as_fd(), now);
        assert_eq!(room.rest_left(now), Some(REST));
        assert_eq!(room.rest_left(now + REST), None);
        // The reader emptied the pipe: no rest.
        while nix::unistd::read(&read, &mut buf).is_ok_and(|n| n > 0) {}
        room.writable(write.as_fd(), now);
        assert_eq!(room.rest_left(now), None);
    }

    #[test]
    fn a_socket_never_rests() {
        let (a, _b) = nix::sys::socket::socketpair(
            nix::sys::socket::AddressFamily::Unix,
            nix::sys::socket::SockType::Stream,
            None,
            nix::sys::socket::SockFlag::SOCK_NONBLOCK,
        )
        .unwrap();
        let mut room = Room::of(a.as_fd());
        fill(a.as_fd());
        room.writable(a.as_fd(), Instant::now());
        assert_eq!(room.rest_left(Instant::now()), None);
    }
}
