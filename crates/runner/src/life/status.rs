//! The out-of-band status channel on fd 3: what the runner reports and how it learns the supervisor is gone.

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, FdFlag, OFlag};
use nix::sys::socket::{recv, send, shutdown, MsgFlags, Shutdown};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

pub struct Status {
    fd: OwnedFd,
}

impl Status {
    /// Takes `fd` when it is open, marking it close-on-exec so the command never inherits it.
    pub fn from_fd(fd: RawFd) -> Option<Status> {
        // SAFETY: F_GETFD on an integer fd has no memory effects; a closed fd yields EBADF.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if flags < 0 {
            return None;
        }
        // SAFETY: the fd is open, and the caller hands it over: nothing else in this process owns or closes it.
        Some(Status::new(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Wraps an owned socket (or pipe) end as the status channel, close-on-exec.
    pub fn new(fd: OwnedFd) -> Status {
        let _ = fcntl(&fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC));
        Status { fd }
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Non-blocking from now on, so the lifeline check can drain what the supervisor sends without stalling.
    pub fn set_nonblocking(&self) {
        if let Ok(flags) = fcntl(&self.fd, FcntlArg::F_GETFL) {
            let flags = OFlag::from_bits_retain(flags) | OFlag::O_NONBLOCK;
            let _ = fcntl(&self.fd, FcntlArg::F_SETFL(flags));
        }
    }

    /// Writes one line; a vanished supervisor is not an error here (the lifeline check handles it).
    pub fn line(&self, text: &str) {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(b'\n');
        let mut written = 0;
        while written < bytes.len() {
            let rest = &bytes[written..];
            let sent = match send(self.fd.as_raw_fd(), rest, MsgFlags::MSG_NOSIGNAL) {
                // A plain pipe on fd 3 (a caller other than Node) works too.
                Err(Errno::ENOTSOCK) => nix::unistd::write(&self.fd, rest),
                other => other,
            };
            match sent {
                Ok(n) => written += n,
                Err(Errno::EINTR) => continue,
                // EAGAIN on a non-blocking channel: wait until it drains rather than drop a status line.
                Err(Errno::EAGAIN) => wait_writable(self.fd.as_fd()),
                Err(_) => return,
            }
        }
    }

    /// Ends the channel both ways, as this process's exit would: the supervisor sees it hang up.
    pub fn close(&self) {
        let _ = shutdown(self.fd.as_raw_fd(), Shutdown::Both);
    }

    /// Appends what the supervisor has sent so far to `into`, without waiting (the channel may still block).
    pub fn receive_waiting(&self, into: &mut Vec<u8>) {
        let mut buf = [0u8; 4096];
        loop {
            match recv(self.fd.as_raw_fd(), &mut buf, MsgFlags::MSG_DONTWAIT) {
                Ok(n) if n > 0 => into.extend_from_slice(&buf[..n]),
                Err(Errno::EINTR) => continue,
                // Nothing more now, the end, or a pipe on fd 3 (a caller other than Node): the loop reads the rest.
                _ => return,
            }
        }
    }

    /// Appends what the supervisor sent (its control lines) to `into`; returns false once the supervisor is gone
    /// (end-of-file or an error): the lifeline has ended.
    pub fn receive(&self, into: &mut Vec<u8>) -> bool {
        let mut buf = [0u8; 4096];
        loop {
            match nix::unistd::read(&self.fd, &mut buf) {
                Ok(0) => return false,
                Ok(n) => into.extend_from_slice(&buf[..n]),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => return true,
                Err(_) => return false,
            }
        }
    }
}

fn wait_writable(fd: BorrowedFd<'_>) {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let mut fds = [PollFd::new(fd, PollFlags::POLLOUT)];
    let _ = poll(&mut fds, PollTimeout::from(1000u16));
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};

    fn pair() -> (Status, OwnedFd) {
        let (a, b) = socketpair(
            AddressFamily::Unix,
            SockType::Stream,
            None,
            SockFlag::empty(),
        )
        .unwrap();
        (Status::new(a), b)
    }

    #[test]
    fn lines_reach_the_peer_whole() {
        let (status, peer) = pair();
        status.line("started 42 none");
        status.line("exit 0");
        let mut buf = [0u8; 64];
        let n = nix::unistd::read(&peer, &mut buf).unwrap();
        assert_eq!(&buf[..n], b"started 42 none\nexit 0\n");
    }

    #[test]
    fn is_close_on_exec() {
        let (status, _peer) = pair();
        let flags = fcntl(status.fd(), FcntlArg::F_GETFD).unwrap();
        assert!(FdFlag::from_bits_retain(flags).contains(FdFlag::FD_CLOEXEC));
    }

    #[test]
    fn receives_until_the_peer_closes() {
        let (status, peer) = pair();
        status.set_nonblocking();
        let mut got = Vec::new();
        assert!(status.receive(&mut got), "nothing sent yet: still alive");
        nix::unistd::write(&peer, b"kill abort\n").unwrap();
        assert!(status.receive(&mut got));
        assert_eq!(got, b"kill abort\n");
        drop(peer);
        assert!(!status.receive(&mut got));
    }

    #[test]
    fn a_closed_channel_hangs_up_behind_its_last_line() {
        use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
        let (status, peer) = pair();
        status.line("exit 0");
        status.close();
        let mut fds = [PollFd::new(peer.as_fd(), PollFlags::POLLIN)];
        poll(&mut fds, PollTimeout::ZERO).unwrap();
        let events = fds[0].revents().unwrap();
        assert!(
            events.contains(PollFlags::POLLIN | PollFlags::POLLHUP),
            "{events:?}"
        );
        let mut buf = [0u8; 64];
        let n = nix::unistd::read(&peer, &mut buf).unwrap();
        assert_eq!(&buf[..n], b"exit 0\n");
        assert_eq!(nix::unistd::read(&peer, &mut buf).unwrap(), 0);
    }

    #[test]
    fn a_vanished_peer_is_not_an_error() {
        let (status, peer) = pair();
        drop(peer);
        status.line("exit 0");
    }

    #[test]
    fn from_fd_refuses_a_closed_fd() {
        assert!(Status::from_fd(987_654).is_none());
    }
}
