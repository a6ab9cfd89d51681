//! A stream's holding pipe: without a spill file, where the newest bytes of a pipe that holds more than memory keeps
//! wait until memory next looks, moved there by splice(2) with no copy, while the older bytes go to /dev/null. A
//! capture that nobody watches then copies through user space only what memory keeps when it ends, not the newest
//! bytes of every pipeful.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use crate::pipe_moves::{drop_oldest, read_held, splice, waiting as waiting_in};

/// The bytes held at a time are at most what memory keeps; the pipe is asked for twice that at least, so that pipe
/// buffers spliced in part (a page each, however few bytes) rarely fill its slots first.
const SLACK: usize = 2;

/// The holding pipe; it always holds the newest bytes of the stream taken so far, `held` of them.
#[derive(Debug)]
pub struct Holding {
    read: OwnedFd,
    write: OwnedFd,
    /// The pipe's size in bytes (of full pages).
    size: usize,
    held: usize,
}

/// What [`Holding::take`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    /// Bytes of the stream taken from the pipe (held or dropped), oldest first.
    pub bytes: usize,
    /// The holding pipe refused some: what it holds is still the newest of the bytes taken, and the rest waits in
    /// the pipe, for memory to catch up and then read as usual.
    pub refused: bool,
}

impl Holding {
    /// An empty holding pipe for a stream of which memory keeps `keep` bytes; `None` where no pipe that large can
    /// be made (out of descriptors, or past the user's pipe pages), and the stream is read as usual.
    pub fn new(keep: usize) -> Option<Self> {
        let (read, write, size) = crate::pipe::owned()?;
        (size >= keep.saturating_mul(SLACK)).then_some(Holding {
            read,
            write,
            size,
            held: 0,
        })
    }

    /// Takes the `waiting` bytes of `from`, oldest first, keeping only the newest `keep` of everything taken so far
    /// (through `scratch` only where /dev/null refuses a splice). Every byte is moved, not dropped, out of `from`:
    /// moving hands over a page, while dropping frees it, and the writer of `from` waits for its pipe's lock
    /// meanwhile; the pages are freed from this pipe, whose lock nobody else takes.
    pub fn take(
        &mut self,
        from: BorrowedFd<'_>,
        waiting: usize,
        keep: usize,
        null: BorrowedFd<'_>,
        scratch: &mut [u8],
    ) -> Taken {
        // Where the waiting bytes would not fit beside those held, what they push out goes first, so that one
        // splice takes the whole pipe.
        let pushed_out = if self.held + waiting > self.size {
            (self.held + waiting).saturating_sub(keep).min(self.held)
        } else {
            0
        };
        if !self.keep_newest(self.held - pushed_out, null, scratch) {
            return Taken {
                bytes: 0,
                refused: true,
            };
        }
        let mut taken = 0;
        let mut refused = false;
        while taken < waiting {
            match splice(from, self.write.as_fd(), waiting - taken) {
                Ok(n) if n > 0 => {
                    taken += n;
                    self.held += n;
                }
                // `from` held less than it said, or this pipe is full (of buffers holding a few bytes each).
                _ => {
                    refused = waiting_in(from) > 0;
                    break;
                }
            }
            if !self.keep_newest(keep, null, scratch) {
                refused = true;
                break;
            }
        }
        Taken {
            bytes: taken,
            refused,
        }
    }

    /// Drops what is held past the newest `keep` bytes; false if the pipe failed to give them.
    fn keep_newest(&mut self, keep: usize, null: BorrowedFd<'_>, scratch: &mut [u8]) -> bool {
        let excess = self.held.saturating_sub(keep);
        let gone = drop_oldest(self.read.as_fd(), null, excess, scratch);
        self.held -= gone;
        gone == excess
    }

    /// Reads everything held, emptying the pipe: the newest bytes taken. Fewer than held only if the pipe failed.
    pub fn read_all(&mut self) -> Vec<u8> {
        let data = read_held(self.read.as_fd(), self.held);
        self.held = 0;
        data
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::pipe_with;
    use std::io::Write;

    fn null() -> std::fs::File {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .unwrap()
    }

    #[test]
    fn keeps_the_newest_bytes_across_takes_of_every_size() {
        let stream: Vec<u8> = (0..5000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let mut holding = Holding::new(100).unwrap();
        let mut scratch = [0u8; 16];
        let (r, mut w) = pipe_with(b"");
        let mut at = 0;
        for len in [10, 300, 1, 99, 100, 2000, 7, 2483] {
            w.write_all(&stream[at..at + len]).unwrap();
            let taken = holding.take(r.as_fd(), len, 100, null().as_fd(), &mut scratch);
            assert_eq!(
                taken,
                Taken {
                    bytes: len,
                    refused: false
                }
            );
            at += len;
            assert_eq!(holding.held, at.min(100));
        }
        assert_eq!(holding.read_all(), &stream[at - 100..]);
        assert_eq!(holding.held, 0);
    }

    #[test]
    fn a_pipe_shorter_than_it_said_gives_what_it_holds() {
        let mut holding = Holding::new(8).unwrap();
        let mut scratch = [0u8; 4];
        let (r, _w) = pipe_with(b"0123456789");
        let taken = holding.take(r.as_fd(), 20, 8, null().as_fd(), &mut scratch);
        assert_eq!(
            taken,
            Taken {
                bytes: 10,
                refused: false
            }
        );
        assert_eq!(holding.read_all(), b"23456789");
    }

    #[test]
    fn a_full_holding_pipe_refuses_and_still_holds_the_newest_bytes_taken() {
        let mut holding = Holding::new(8).unwrap();
        let mut scratch = [0u8; 4];
        // Buffers of one byte each fill the holding pipe's slots long before its bytes reach what it may hold.
        let (r, mut w) = pipe_with(b"");
        let slots = 4096;
        let mut written = Vec::new();
        for i in 0..slots {
            let byte = [b'a' + (i % 26) as u8];
            w.write_all(&byte).unwrap();
            written.push(byte[0]);
            let taken = holding.take(r.as_fd(), 1, slots * 2, null().as_fd(), &mut scratch);
            if taken.refused {
                assert_eq!(taken.bytes, 0);
                assert_eq!(holding.read_all(), &written[..i]);
                return;
            }
        }
        panic!("a pipe of {slots} slots at most never filled");
    }
}
