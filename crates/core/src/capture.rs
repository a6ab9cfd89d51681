//! One capture: stdout and stderr (tail + spill each) and an optional job ring; its memory apart from its files.

use std::path::PathBuf;

use crate::options::CaptureOptions;
use crate::ring::{ChunkKind, Ring};
use crate::spill::{Spill, SpillState};
use crate::tail::{Observed, ObservedView, Tail};

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    Stdout = 0,
    Stderr = 1,
}

impl Stream {
    pub fn from_index(i: u32) -> Option<Self> {
        match i {
            0 => Some(Stream::Stdout),
            1 => Some(Stream::Stderr),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }

    pub fn kind(self) -> ChunkKind {
        match self {
            Stream::Stdout => ChunkKind::Stdout,
            Stream::Stderr => ChunkKind::Stderr,
        }
    }
}

/// What a stream holds, for rendering a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInfo {
    /// Every byte ever written.
    pub total: u64,
    /// Bytes in the retained tail window.
    pub retained: usize,
    /// Bytes were dropped from the tail.
    pub truncated: bool,
    pub spill: SpillState,
    /// Present while the spill is active or complete.
    pub spill_path: Option<PathBuf>,
}

/// What a capture keeps in memory: both tails, the ring and the finished flag. It does no I/O, so a lock
/// around it is only ever held for a copy.
#[derive(Debug)]
pub struct Memory {
    tails: [Tail; 2],
    ring: Option<Ring>,
    finished: bool,
}

impl Memory {
    pub fn new(options: &CaptureOptions) -> Self {
        Memory {
            tails: [Tail::new(options.stdout_cap), Tail::new(options.stderr_cap)],
            ring: options.ring.map(Ring::new),
            finished: false,
        }
    }

    pub fn write(&mut self, stream: Stream, data: &[u8]) {
        self.tails[stream as usize].write(data);
        if let Some(ring) = &mut self.ring {
            ring.append(stream.kind(), data, false);
        }
    }

    /// The most of a stream's newest bytes this memory can hold at once: its tail cap, or the ring's retention.
    pub fn keeps(&self, stream: Stream) -> usize {
        let ring = self.ring.as_ref().map_or(0, Ring::retention);
        self.tails[stream as usize].cap().max(ring)
    }

    /// Writes the newest bytes of a chunk whose oldest `skipped` bytes were never read; `data` holds at least
    /// [`Memory::keeps`] bytes, so the tail and the ring end as if the whole chunk had been written.
    pub fn write_after_skip(&mut self, stream: Stream, skipped: u64, data: &[u8]) {
        self.tails[stream as usize].write_after_skip(skipped, data);
        if let Some(ring) = &mut self.ring {
            ring.append_after_skip(stream.kind(), skipped, data);
        }
    }

    /// Marks the memory finished and settles the ring. Idempotent.
    pub fn finish(&mut self) {
        self.finished = true;
        if let Some(ring) = &mut self.ring {
            ring.settle();
        }
    }

    pub fn finished(&self) -> bool {
        self.finished
    }

    pub fn tail(&self, stream: Stream) -> &Tail {
        &self.tails[stream as usize]
    }

    /// An observer read of `stream`'s tail as a view; an incomplete last sequence is held back until finished.
    pub fn observe_view(&self, stream: Stream, from: u64, max: usize) -> ObservedView<'_> {
        self.tails[stream as usize].observe_view(from, max, self.finished)
    }

    pub fn ring(&self) -> Option<&Ring> {
        self.ring.as_ref()
    }

    pub fn ring_mut(&mut self) -> Option<&mut Ring> {
        self.ring.as_mut()
    }
}

/// The spill files of a capture: `<stem>.stdout.log` and `<stem>.stderr.log`.
pub fn spills(id: u64, options: &CaptureOptions) -> [Spill; 2] {
    let stem = options
        .spill_name
        .clone()
        .unwrap_or_else(|| format!("capture-{id}"));
    [Stream::Stdout, Stream::Stderr].map(|s| {
        Spill::new(
            options.spill_dir.clone(),
            format!("{stem}.{}.log", s.as_str()),
            options.spill_cap,
        )
    })
}

/// One capture owned by one thread (the registry shares captures through `shared::SharedCapture`).
#[derive(Debug)]
pub struct Capture {
    memory: Memory,
    spills: [Spill; 2],
}

impl Capture {
    /// A capture whose spill files are named after `id` unless the options name them.
    pub fn new(id: u64, options: &CaptureOptions) -> Self {
        Capture {
            memory: Memory::new(options),
            spills: spills(id, options),
        }
    }

    pub fn write(&mut self, stream: Stream, data: &[u8]) {
        // The spill takes the chunk before the tail does, so at the first overflow the tail still holds every
        // earlier byte and can back-fill the file.
        let tail = self.memory.tail(stream);
        let (a, b) = tail.window_slices();
        self.spills[stream as usize].write(tail.total(), tail.cap(), [a, b], data);
        self.memory.write(stream, data);
    }

    /// Closes both spills, marks the capture finished and settles the ring. Idempotent.
    pub fn finish(&mut self) {
        for s in &mut self.spills {
            s.finish();
        }
        self.memory.finish();
    }

    pub fn finished(&self) -> bool {
        self.memory.finished()
    }

    pub fn info(&self, stream: Stream) -> StreamInfo {
        let tail = self.memory.tail(stream);
        let spill = &self.spills[stream as usize];
        StreamInfo {
            total: tail.total(),
            retained: tail.window_len(),
            truncated: tail.dropped(),
            spill: spill.state(),
            spill_path: spill.path().map(PathBuf::from),
        }
    }

    /// The retained tail window of `stream`.
    pub fn tail(&self, stream: Stream) -> Vec<u8> {
        self.memory.tail(stream).window()
    }

    /// The retained tail window of `stream` as at most two slices in stream order, without copying.
    pub fn tail_slices(&self, stream: Stream) -> (&[u8], &[u8]) {
        self.memory.tail(stream).window_slices()
    }

    /// An observer read of `stream`'s tail; an incomplete last sequence is held back until finished.
    pub fn observe(&self, stream: Stream, from: u64, max: usize) -> Observed {
        self.observe_view(stream, from, max).to_observed()
    }

    /// [`Capture::observe`] as a view of the tail's own buffer.
    pub fn observe_view(&self, stream: Stream, from: u64, max: usize) -> ObservedView<'_> {
        self.memory.observe_view(stream, from, max)
    }

    pub fn ring(&self) -> Option<&Ring> {
        self.memory.ring()
    }

    pub fn ring_mut(&mut self) -> Option<&mut Ring> {
        self.memory.ring_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::RingOptions;

    #[test]
    fn write_feeds_the_tail_and_the_ring() {
        let opts = CaptureOptions {
            stdout_cap: 4,
            ring: Some(RingOptions::default()),
            ..Default::default()
        };
        let mut c = Capture::new(1, &opts);
        c.write(Stream::Stdout, b"hello");
        c.write(Stream::Stderr, b"oops");
        assert_eq!(c.tail(Stream::Stdout), b"ello");
        assert_eq!(c.tail(Stream::Stderr), b"oops");
        let info = c.info(Stream::Stdout);
        assert_eq!(
            info,
            StreamInfo {
                total: 5,
                retained: 4,
                truncated: true,
                spill: SpillState::Unavailable,
                spill_path: None
            }
        );
        let read = c.ring().unwrap().observe(0, 100);
        assert_eq!(read.meta.total, 9);
        assert_eq!(read.segments[0].kind, ChunkKind::Stdout);
        assert_eq!(read.segments[1].kind, ChunkKind::Stderr);
    }

    #[test]
    fn finish_releases_held_back_bytes_and_is_idempotent() {
        let opts = CaptureOptions {
            ring: Some(RingOptions::default()),
            ..Default::default()
        };
        let mut c = Capture::new(1, &opts);
        c.write(Stream::Stdout, &[b'a', 0xE2]);
        assert_eq!(c.observe(Stream::Stdout, 0, 10).data, b"a");
        assert_eq!(c.ring().unwrap().total(), 1);
        c.finish();
        c.finish();
        assert!(c.finished());
        assert_eq!(c.observe(Stream::Stdout, 0, 10).data, [b'a', 0xE2]);
        assert_eq!(c.ring().unwrap().total(), 2);
        assert!(c.ring().unwrap().settled());
    }

    #[test]
    fn no_overflow_means_no_spill() {
        let mut c = Capture::new(1, &CaptureOptions::default());
        c.write(Stream::Stdout, b"small");
        c.finish();
        assert_eq!(c.info(Stream::Stdout).spill, SpillState::None);
        assert!(c.ring().is_none());
    }
}
