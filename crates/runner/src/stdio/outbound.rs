//! What `--stdio` writes to its stream, in order: whole frames from memory, and frames whose payload is spliced from a
//! command's pipe (`splice`). A pipe's frame that was not begun when its pipe was let go sends nothing; one begun
//! completes, whatever the command does meanwhile.

use std::collections::VecDeque;
use std::os::fd::{BorrowedFd, OwnedFd, RawFd};
use std::rc::Rc;

use nix::errno::Errno;

use super::splice::{PipeFrame, Step};
use crate::wire::frames::STDERR;

enum Out {
    Bytes(Vec<u8>),
    Pipe(PipeFrame),
}

/// A pipe's frame that left the queue: its command may poll the pipe again, unless it `ended`.
pub struct Left {
    pub id: u32,
    pub index: usize,
    pub ended: bool,
}

#[derive(Default)]
pub struct Outbound {
    queue: VecDeque<Out>,
    /// Bytes of the front frame already written, when it is `Out::Bytes`.
    written: usize,
    /// The stream failed: the far side is gone, and frames are dropped from now on.
    pub broken: bool,
}

impl Outbound {
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Queues a whole frame.
    pub fn push(&mut self, bytes: Vec<u8>) {
        if !self.broken {
            self.queue.push_back(Out::Bytes(bytes));
        }
    }

    /// Queues a frame of what `pipe` holds when the frame reaches the stream.
    pub fn push_pipe(&mut self, kind: u8, id: u32, pipe: Rc<OwnedFd>) {
        self.queue
            .push_back(Out::Pipe(PipeFrame::new(kind, id, pipe)));
    }

    /// The pipes queued frames hold (a forked runner must not keep them).
    pub fn pipes(&self) -> impl Iterator<Item = RawFd> + '_ {
        use std::os::fd::AsRawFd;
        self.queue.iter().filter_map(|out| match out {
            Out::Pipe(frame) => Some(frame.pipe().as_raw_fd()),
            Out::Bytes(_) => None,
        })
    }

    /// Writes frames, in order, until `stream` is full or the queue is empty; `current` says whether a pipe is
    /// still its command's. Returns the pipe frames that left.
    pub fn write(
        &mut self,
        stream: BorrowedFd<'_>,
        current: impl Fn(u32, usize, &Rc<OwnedFd>) -> bool,
    ) -> Vec<Left> {
        let mut left = Vec::new();
        while let Some(front) = self.queue.front_mut() {
            match front {
                Out::Bytes(bytes) => {
                    match nix::unistd::write(stream, &bytes[self.written..]) {
                        Ok(n) => self.written += n,
                        Err(Errno::EINTR) => continue,
                        Err(Errno::EAGAIN) => break,
                        Err(_) => {
                            self.break_off();
                            break;
                        }
                    }
                    if self.written == bytes.len() {
                        self.queue.pop_front();
                        self.written = 0;
                    }
                }
                Out::Pipe(frame) => {
                    let (id, kind) = frame.of();
                    let index = usize::from(kind == STDERR);
                    let current = current(id, index, frame.pipe());
                    // A pipe let go meanwhile sends nothing more, unless its frame was begun: that one completes.
                    let step = if current || frame.begun() {
                        frame.advance(stream)
                    } else {
                        Step::Empty
                    };
                    match step {
                        Step::Blocked => break,
                        Step::Broken => {
                            self.break_off();
                            break;
                        }
                        Step::Sent | Step::Empty | Step::Ended => {
                            self.queue.pop_front();
                            let ended = step == Step::Ended && current;
                            left.push(Left { id, index, ended });
                        }
                    }
                }
            }
        }
        left
    }

    /// The far side is gone: nothing more is sent.
    fn break_off(&mut self) {
        self.broken = true;
        self.queue.clear();
        self.written = 0;
    }
}
