//! The way into a spill file: a pipe of each thread's own, through which bytes go from a command's pipe to the
//! file. The command's pipe only hands its pages over (a move, done in an instant under its lock); the copy into
//! the page cache happens under this pipe's lock, which no writer waits for. Spliced straight into a file, a
//! command's pipe stays locked through that copy, and the command spins on the lock meanwhile.

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use crate::pipe_moves::{read_held, splice};

/// A relay pipe smaller than this moves too little per splice to be worth its two descriptors.
const MIN_SIZE: usize = 64 * 1024;

#[derive(Debug)]
struct Relay {
    read: OwnedFd,
    write: OwnedFd,
    size: usize,
}

thread_local! {
    /// Made on a thread's first splice into a file, and empty between calls.
    static RELAY: RefCell<Option<Relay>> = const { RefCell::new(None) };
}

/// What [`into_file`] did.
#[derive(Debug, Default)]
pub struct Relayed {
    /// Bytes that left the pipe and are in the file, oldest first.
    pub in_file: usize,
    /// Bytes that left the pipe after those and are not in the file, because writing it failed: memory takes them.
    pub stranded: Vec<u8>,
    /// Writing the file failed (ENOSPC, EIO, EFBIG): it no longer holds the whole stream.
    pub failed: bool,
}

/// Moves up to `len` bytes from `pipe` into `file` at its position, never copying them through user space unless
/// the file system refuses splice(2): those bytes are written from memory instead. The pipe is emptied into the
/// relay in one splice, then the relay into the file at most `chunk` per splice: the command refills its pipe during
/// those copies without meeting this thread on the pipe's lock. (Taken a piece at a time, the thread came back while
/// the command's next write held the lock, and spun on it: bench/lib/reader.c's relay spent 0.36–0.41 s of CPU per
/// GiB that way against 0.32–0.37 s, with 7–9% of its samples in `mutex_spin_on_owner` against under 1%.)
/// Stops early when the pipe holds less than it said, or when the file fails. `None`, nothing moved, where the
/// thread has no relay and none of `MIN_SIZE` can be made (out of descriptors, or past the user's pipe pages): the
/// caller reads the bytes as usual, and the next call tries again.
pub fn into_file(
    pipe: BorrowedFd<'_>,
    file: &mut File,
    len: usize,
    chunk: usize,
) -> Option<Relayed> {
    RELAY.with_borrow_mut(|relay| {
        if relay.is_none() {
            *relay = Relay::new();
        }
        relay
            .as_ref()
            .map(|relay| relay.pass(pipe, file, len, chunk))
    })
}

impl Relay {
    fn new() -> Option<Self> {
        let (read, write, size) = crate::pipe::owned()?;
        (size >= MIN_SIZE).then_some(Relay { read, write, size })
    }

    fn pass(&self, pipe: BorrowedFd<'_>, file: &mut File, len: usize, chunk: usize) -> Relayed {
        let mut done = Relayed::default();
        while done.in_file < len {
            let n = match splice(
                pipe,
                self.write.as_fd(),
                (len - done.in_file).min(self.size),
            ) {
                Ok(n) if n > 0 => n,
                _ => break,
            };
            let mut left = n;
            while left > 0 {
                match splice(self.read.as_fd(), file.as_fd(), left.min(chunk)) {
                    Ok(m) if m > 0 => {
                        left -= m;
                        done.in_file += m;
                    }
                    Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                        let bytes = read_held(self.read.as_fd(), left);
                        left = 0;
                        write_from_memory(file, bytes, &mut done);
                    }
                    _ => {
                        done.stranded = read_held(self.read.as_fd(), left);
                        left = 0;
                        done.failed = true;
                    }
                }
            }
            if done.failed {
                break;
            }
        }
        done
    }
}

/// Writes bytes that left the pipe into a file that takes no splice(2), as a read would have; stranded if it fails.
fn write_from_memory(file: &mut File, bytes: Vec<u8>, done: &mut Relayed) {
    if file.write_all(&bytes).is_ok() {
        done.in_file += bytes.len();
    } else {
        done.stranded = bytes;
        done.failed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{pipe_with, unlinked_file};
    use std::io::{Read, Seek};

    fn contents(mut file: File) -> Vec<u8> {
        let mut bytes = Vec::new();
        file.rewind().unwrap();
        file.read_to_end(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn moves_every_byte_in_order_across_chunks_and_files() {
        let stream: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let (r, _w) = pipe_with(&stream);
        let (mut first, mut second) = (unlinked_file(false), unlinked_file(false));
        // A chunk that is not a multiple of a page, and a second file after the first: the relay carries nothing
        // from one call to the next.
        let a = into_file(r.as_fd(), &mut first, 100_001, 12_345).unwrap();
        let b = into_file(r.as_fd(), &mut second, 1_000_000, 65_536).unwrap();
        assert_eq!((a.in_file, a.failed, a.stranded.len()), (100_001, false, 0));
        assert_eq!((b.in_file, b.failed, b.stranded.len()), (199_999, false, 0));
        assert_eq!(contents(first), &stream[..100_001]);
        assert_eq!(contents(second), &stream[100_001..]);
    }

    #[test]
    fn a_file_that_refuses_splice_takes_the_bytes_written_from_memory() {
        // splice(2) refuses a file opened O_APPEND (EINVAL), which write(2) takes.
        let stream: Vec<u8> = (0..70_000u32).map(|i| (i % 253) as u8).collect();
        let (r, _w) = pipe_with(&stream);
        let mut appending = unlinked_file(true);
        let done = into_file(r.as_fd(), &mut appending, 70_000, 16_384).unwrap();
        assert_eq!(
            (done.in_file, done.failed, done.stranded.len()),
            (70_000, false, 0)
        );
        assert_eq!(contents(appending), stream);
    }
}
