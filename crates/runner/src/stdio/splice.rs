//! One command pipe's output leaving `--stdio` as one frame: the header says how many bytes the pipe holds when the
//! frame begins, then exactly those bytes move from the pipe to the stream with splice(2), never through this
//! process's memory. The bytes are in the pipe before the header promises them, so a frame always completes,
//! whatever the command does meanwhile (ends, writes more, closes the pipe); only room on the stream can hold it up.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::rc::Rc;

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use crate::wire::frames::{Header, HEADER};

/// Bytes read at a time when the stream takes no splice (not a pipe or a socket): they go through memory then.
const COPY_CHUNK: usize = 64 << 10;

/// What one step of a frame came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// The whole frame is on the stream.
    Sent,
    /// The stream is full: try again once it is writable.
    Blocked,
    /// The pipe held nothing (a wake-up with no bytes): no frame was begun.
    Empty,
    /// The pipe reached end-of-file: no frame was begun, and none will be.
    Ended,
    /// The stream failed, or the pipe lost bytes the header promised: nothing more can go out.
    Broken,
}

enum State {
    /// Not begun: sized when it reaches the stream.
    Unsized,
    Header {
        bytes: [u8; HEADER],
        written: usize,
        payload: usize,
    },
    /// `left` bytes still in the pipe; `carry[at..]` taken out of it (on a stream splice refuses) and not yet written.
    Payload {
        left: usize,
        carry: Vec<u8>,
        at: usize,
    },
}

/// A frame of `kind` for command `id` carrying what `pipe` holds.
pub struct PipeFrame {
    kind: u8,
    id: u32,
    pipe: Rc<OwnedFd>,
    state: State,
}

impl PipeFrame {
    pub fn new(kind: u8, id: u32, pipe: Rc<OwnedFd>) -> Self {
        PipeFrame {
            kind,
            id,
            pipe,
            state: State::Unsized,
        }
    }

    /// The command and stream this frame carries.
    pub fn of(&self) -> (u32, u8) {
        (self.id, self.kind)
    }

    /// The pipe it reads.
    pub fn pipe(&self) -> &Rc<OwnedFd> {
        &self.pipe
    }

    /// True once its header is (partly) on the stream: from then on it must be finished before anything else goes.
    pub fn begun(&self) -> bool {
        !matches!(self.state, State::Unsized)
    }

    /// Moves as much of the frame as `out` (non-blocking) takes now.
    pub fn advance(&mut self, out: BorrowedFd<'_>) -> Step {
        loop {
            match &mut self.state {
                State::Unsized => {
                    let held = match held(self.pipe.as_fd()) {
                        Some(held) => held,
                        None => return Step::Ended,
                    };
                    if held == 0 {
                        return Step::Empty;
                    }
                    self.state = State::Header {
                        bytes: Header {
                            kind: self.kind,
                            id: self.id,
                            payload: held,
                        }
                        .bytes(),
                        written: 0,
                        payload: held,
                    };
                }
                State::Header {
                    bytes,
                    written,
                    payload,
                } => {
                    match nix::unistd::write(out, &bytes[*written..]) {
                        Ok(n) => *written += n,
                        Err(Errno::EINTR) => continue,
                        Err(Errno::EAGAIN) => return Step::Blocked,
                        Err(_) => return Step::Broken,
                    }
                    if *written == HEADER {
                        self.state = State::Payload {
                            left: *payload,
                            carry: Vec::new(),
                            at: 0,
                        };
                    }
                }
                State::Payload { left, carry, at } => {
                    if *at < carry.len() {
                        match nix::unistd::write(out, &carry[*at..]) {
                            Ok(n) => *at += n,
                            Err(Errno::EINTR) => {}
                            Err(Errno::EAGAIN) => return Step::Blocked,
                            Err(_) => return Step::Broken,
                        }
                        continue;
                    }
                    if *left == 0 {
                        return Step::Sent;
                    }
                    let moved = if carry.capacity() == 0 {
                        splice(self.pipe.as_fd(), out, *left)
                    } else {
                        Err(Errno::EINVAL)
                    };
                    match moved {
                        Ok(0) => return Step::Broken,
                        // Short: the stream took all it had room for (the pipe holds every promised byte), so
                        // asking again now would only fail; wait for room instead.
                        Ok(n) if n < *left => {
                            *left -= n;
                            return Step::Blocked;
                        }
                        Ok(n) => *left -= n,
                        Err(Errno::EINTR) => {}
                        Err(Errno::EAGAIN) => return Step::Blocked,
                        // A stream splice cannot write to: the rest of this frame is copied.
                        Err(Errno::EINVAL) => {
                            carry.resize((*left).min(COPY_CHUNK), 0);
                            match nix::unistd::read(self.pipe.as_fd(), carry) {
                                Ok(n) if n > 0 => {
                                    carry.truncate(n);
                                    *at = 0;
                                    *left -= n;
                                }
                                Err(Errno::EINTR) => carry.clear(),
                                _ => return Step::Broken,
                            }
                        }
                        Err(_) => return Step::Broken,
                    }
                }
            }
        }
    }
}

/// Bytes the pipe holds now; `None` at end-of-file (empty, and no writer left to fill it).
fn held(pipe: BorrowedFd<'_>) -> Option<usize> {
    loop {
        let held = queued(pipe)?;
        if held > 0 {
            return Some(held);
        }
        // Empty: ended only if no writer is left, which poll says without taking a byte. Bytes that came in between
        // show as readable: look again.
        let mut fds = [PollFd::new(pipe, PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::ZERO) {
            Ok(0) => return Some(0),
            Ok(_) => {
                let revents = fds[0].revents().unwrap_or(PollFlags::empty());
                if revents.contains(PollFlags::POLLIN) {
                    continue;
                }
                return if revents.is_empty() { Some(0) } else { None };
            }
            Err(Errno::EINTR) => continue,
            Err(_) => return None,
        }
    }
}

/// Bytes waiting in a pipe now (either end); `None` when the kernel will not say.
pub fn queued(pipe: BorrowedFd<'_>) -> Option<usize> {
    let mut held: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int into `held`; the fd is borrowed and open.
    if unsafe { libc::ioctl(pipe.as_raw_fd(), libc::FIONREAD, &mut held) } != 0 {
        return None;
    }
    usize::try_from(held).ok()
}

/// One non-blocking splice of at most `len` bytes from `pipe` to `out`.
fn splice(pipe: BorrowedFd<'_>, out: BorrowedFd<'_>, len: usize) -> Result<usize, Errno> {
    // SAFETY: both fds are borrowed and open; null offsets: pipes and sockets have none.
    let n = unsafe {
        libc::splice(
            pipe.as_raw_fd(),
            std::ptr::null_mut(),
            out.as_raw_fd(),
            std::ptr::null_mut(),
            len,
            libc::SPLICE_F_NONBLOCK | libc::SPLICE_F_MOVE,
        )
    };
    if n < 0 {
        Err(Errno::last())
    } else {
        Ok(n as usize)
    }
}
