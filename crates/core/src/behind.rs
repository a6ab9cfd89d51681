//! A capture's memory and the bytes it is behind by: bytes the reactor spliced straight from a pipe into the
//! spill file, or, without a file, into the stream's holding pipe, which the tail and the ring have not seen yet.
//! Memory catches up, reading only the newest bytes it keeps, whenever anyone next locks it, so no reader or writer
//! ever sees it behind.

use std::fs::File;
use std::ops::{Deref, DerefMut};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use crate::capture::{Memory, Stream};
#[cfg(target_os = "linux")]
use crate::holding::Holding;

/// Where the bytes memory is behind by are.
#[derive(Debug)]
enum Source {
    /// In the spill file, at their stream offsets, through a handle of its own: it outlives the spill dropping the
    /// file (a full disk, the cap), so bytes already moved into it still reach memory.
    File(Arc<File>),
    /// The newest of them in the stream's holding pipe, the older ones dropped.
    #[cfg(target_os = "linux")]
    Pipe(Holding),
}

/// The part of a stream memory has not seen: stream offsets `from..to`.
#[derive(Debug)]
struct Behind {
    source: Source,
    from: u64,
    to: u64,
}

/// What a capture's memory lock guards: the memory, and per stream what it is behind by.
#[derive(Debug)]
pub struct Held {
    memory: Memory,
    behind: [Option<Behind>; 2],
}

impl Held {
    pub fn new(memory: Memory) -> Self {
        Held {
            memory,
            behind: [None, None],
        }
    }

    /// Records that the spill file took `len` bytes of `stream` at offset `at` that memory has not seen.
    pub fn fell_behind(&mut self, stream: Stream, file: &Arc<File>, at: u64, len: usize) {
        let behind = &mut self.behind[stream as usize];
        match behind {
            Some(Behind {
                source: Source::File(f),
                to,
                ..
            }) if *to == at && Arc::ptr_eq(f, file) => *to += len as u64,
            _ => {
                // Never two runs at once: memory catches up before any other change, and splices follow each other.
                debug_assert!(behind.is_none(), "memory caught up before the next run");
                *behind = Some(Behind {
                    source: Source::File(file.clone()),
                    from: at,
                    to: at + len as u64,
                });
            }
        }
    }

    /// Without a spill file: takes the `waiting` bytes of `pipe`, keeping of them only the newest bytes memory
    /// keeps, in the stream's holding pipe (see `holding`). False when the usual read is to take them: the pipe
    /// holds no more than memory keeps and nothing is held, no holding pipe can be made, or it refused bytes;
    /// memory is caught up then, so the read follows every byte taken.
    #[cfg(target_os = "linux")]
    pub fn hold_newest(
        &mut self,
        stream: Stream,
        pipe: std::os::fd::BorrowedFd<'_>,
        waiting: usize,
        null: std::os::fd::BorrowedFd<'_>,
        scratch: &mut [u8],
    ) -> bool {
        let keep = self.memory.keeps(stream);
        let index = stream as usize;
        if !matches!(
            self.behind[index],
            None | Some(Behind {
                source: Source::Pipe(_),
                ..
            })
        ) {
            self.catch_up();
        }
        if self.behind[index].is_none() {
            let holding = (waiting > keep).then(|| Holding::new(keep)).flatten();
            let Some(holding) = holding else {
                return false;
            };
            let total = self.memory.tail(stream).total();
            self.behind[index] = Some(Behind {
                source: Source::Pipe(holding),
                from: total,
                to: total,
            });
        }
        let Some(Behind {
            source: Source::Pipe(holding),
            to,
            ..
        }) = &mut self.behind[index]
        else {
            unreachable!("a holding pipe was just found or made");
        };
        let taken = holding.take(pipe, waiting, keep, null, scratch);
        *to += taken.bytes as u64;
        if taken.refused {
            self.catch_up();
        }
        !taken.refused
    }

    /// Bytes of `stream` that memory is behind by.
    pub fn behind(&self, stream: Stream) -> u64 {
        self.behind[stream as usize]
            .as_ref()
            .map_or(0, |b| b.to - b.from)
    }

    /// Brings memory up to date (stdout first, as the reactor reads it first); true when it changed anything. A
    /// source that cannot be read leaves the bytes counted but not kept, as a gap.
    pub fn catch_up(&mut self) -> bool {
        let mut changed = false;
        for stream in [Stream::Stdout, Stream::Stderr] {
            let Some(b) = self.behind[stream as usize].take() else {
                continue;
            };
            let len = b.to - b.from;
            let data = match b.source {
                Source::File(file) => {
                    let newest = len.min(self.memory.keeps(stream) as u64);
                    let mut data = vec![0; newest as usize];
                    if file.read_exact_at(&mut data, b.to - newest).is_err() {
                        data.clear();
                    }
                    data
                }
                #[cfg(target_os = "linux")]
                Source::Pipe(mut holding) => holding.read_all(),
            };
            self.memory
                .write_after_skip(stream, len - data.len() as u64, &data);
            changed = true;
        }
        changed
    }
}

impl Deref for Held {
    type Target = Memory;

    fn deref(&self) -> &Memory {
        &self.memory
    }
}

impl DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Memory {
        &mut self.memory
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::options::CaptureOptions;
    use crate::ring::RingOptions;

    /// An unlinked file holding `bytes`, as a spill file dropped after a full disk is.
    fn file_with(bytes: &[u8]) -> Arc<File> {
        let mut file = crate::testing::unlinked_file(false);
        file.write_all(bytes).unwrap();
        Arc::new(file)
    }

    fn options() -> CaptureOptions {
        CaptureOptions {
            stdout_cap: 4,
            ring: Some(RingOptions {
                live_limit: 6,
                settled_limit: 6,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn catching_up_ends_as_writing_every_byte_would() {
        let stream: Vec<u8> = (0..100u8).map(|i| b'a' + i % 26).collect();
        let file = file_with(&stream);
        let mut held = Held::new(Memory::new(&options()));
        held.write(Stream::Stdout, &stream[..10]);
        held.fell_behind(Stream::Stdout, &file, 10, 40);
        held.fell_behind(Stream::Stdout, &file, 50, 50);
        assert_eq!(held.behind(Stream::Stdout), 90);
        assert!(held.catch_up());
        assert!(!held.catch_up());
        let mut all = Memory::new(&options());
        all.write(Stream::Stdout, &stream[..10]);
        all.write(Stream::Stdout, &stream[10..]);
        assert_eq!(
            held.tail(Stream::Stdout).window(),
            all.tail(Stream::Stdout).window()
        );
        assert_eq!(held.tail(Stream::Stdout).total(), 100);
        assert_eq!(
            held.ring().unwrap().observe(0, 100),
            all.ring().unwrap().observe(0, 100)
        );
    }

    #[test]
    fn fewer_bytes_behind_than_memory_keeps_are_all_read() {
        let file = file_with(b"xyz");
        let mut held = Held::new(Memory::new(&options()));
        held.fell_behind(Stream::Stderr, &file, 0, 3);
        held.catch_up();
        assert_eq!(held.tail(Stream::Stderr).window(), b"xyz");
        assert_eq!(held.behind(Stream::Stderr), 0);
    }

    #[test]
    fn an_unreadable_file_counts_the_bytes_as_a_gap() {
        let file = file_with(b"ab");
        let mut held = Held::new(Memory::new(&options()));
        held.write(Stream::Stdout, b"01");
        // The file holds fewer bytes than were recorded: the read fails.
        held.fell_behind(Stream::Stdout, &file, 2, 8);
        held.catch_up();
        assert_eq!(held.tail(Stream::Stdout).total(), 10);
        assert_eq!(held.tail(Stream::Stdout).window(), b"");
    }
}
