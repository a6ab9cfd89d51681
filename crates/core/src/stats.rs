//! What a capture publishes for lock-free polling: sizes, spill states, the finished flag and the ring state.
//!
//! Every field is its own atomic, written by whoever holds the capture's memory lock (or, for spill states,
//! the stream's spill lock) and read by anyone without waiting. Fields are published in an order that keeps
//! the documented invariants (`earliest <= total`, `consumer <= total`) true at every instant.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use crate::capture::{Memory, Stream};
use crate::ring::RingState;
use crate::spill::SpillState;

#[derive(Debug, Default)]
struct StreamStats {
    total: AtomicU64,
    retained: AtomicU64,
    truncated: AtomicBool,
    spill: AtomicU8,
}

#[derive(Debug, Default)]
struct RingStats {
    total: AtomicU64,
    earliest: AtomicU64,
    consumer: AtomicU64,
    settled: AtomicBool,
    terminal_read: AtomicBool,
    retained: AtomicU64,
}

#[derive(Debug, Default)]
pub struct Stats {
    streams: [StreamStats; 2],
    ring: RingStats,
    finished: AtomicBool,
    behind: AtomicBool,
}

/// The tail figures of one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailStats {
    pub total: u64,
    pub retained: usize,
    pub truncated: bool,
}

impl Stats {
    /// Publishes what `memory` holds now, caught up with its spill files; the caller holds the memory lock.
    pub fn publish(&self, memory: &Memory) {
        for stream in [Stream::Stdout, Stream::Stderr] {
            let tail = memory.tail(stream);
            let s = &self.streams[stream as usize];
            s.retained
                .store(tail.window_len() as u64, Ordering::Release);
            s.truncated.store(tail.dropped(), Ordering::Release);
            s.total.store(tail.total(), Ordering::Release);
        }
        if let Some(ring) = memory.ring() {
            let state = ring.state();
            let r = &self.ring;
            r.total.store(state.total, Ordering::Release);
            r.consumer.store(state.consumer, Ordering::Release);
            r.earliest.store(state.earliest, Ordering::Release);
            r.retained.store(state.retained, Ordering::Release);
            r.terminal_read
                .store(state.terminal_read, Ordering::Release);
            r.settled.store(state.settled, Ordering::Release);
        }
        self.finished.store(memory.finished(), Ordering::Release);
        self.behind.store(false, Ordering::Release);
    }

    /// Publishes `memory` as [`Stats::publish`] does, with each stream's total raised by the bytes memory is
    /// `behind` by (in the spill file or the holding pipe, not yet in memory; see `behind`), and marks the figures
    /// as waiting for memory to catch up: the stream totals are exact, the rest is read after catching up (see
    /// [`Stats::behind`]).
    pub fn publish_behind(&self, memory: &Memory, behind: [u64; 2]) {
        self.publish(memory);
        for stream in [Stream::Stdout, Stream::Stderr] {
            let s = &self.streams[stream as usize];
            let tail = memory.tail(stream);
            let total = tail.total() + behind[stream as usize];
            s.truncated
                .store(total > tail.cap() as u64, Ordering::Release);
            s.total.store(total, Ordering::Release);
        }
        self.behind.store(true, Ordering::Release);
    }

    /// Memory is behind its spill files or holding pipes: only the stream totals are current until it catches up.
    pub fn behind(&self) -> bool {
        self.behind.load(Ordering::Acquire)
    }

    pub fn publish_spill(&self, stream: Stream, state: SpillState) {
        self.streams[stream as usize]
            .spill
            .store(code(state), Ordering::Release);
    }

    pub fn tail(&self, stream: Stream) -> TailStats {
        let s = &self.streams[stream as usize];
        TailStats {
            total: s.total.load(Ordering::Acquire),
            retained: s.retained.load(Ordering::Acquire) as usize,
            truncated: s.truncated.load(Ordering::Acquire),
        }
    }

    pub fn spill(&self, stream: Stream) -> SpillState {
        state(self.streams[stream as usize].spill.load(Ordering::Acquire))
    }

    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    pub fn ring(&self) -> RingState {
        let r = &self.ring;
        // Read in the reverse order of publishing: a value read later is never older than one read earlier.
        let settled = r.settled.load(Ordering::Acquire);
        let terminal_read = r.terminal_read.load(Ordering::Acquire);
        let retained = r.retained.load(Ordering::Acquire);
        let earliest = r.earliest.load(Ordering::Acquire);
        let consumer = r.consumer.load(Ordering::Acquire);
        let total = r.total.load(Ordering::Acquire);
        RingState {
            total,
            earliest,
            consumer,
            settled,
            terminal_read,
            retained,
        }
    }
}

fn code(state: SpillState) -> u8 {
    match state {
        SpillState::None => 0,
        SpillState::Active => 1,
        SpillState::Complete => 2,
        SpillState::Unavailable => 3,
    }
}

fn state(code: u8) -> SpillState {
    match code {
        1 => SpillState::Active,
        2 => SpillState::Complete,
        3 => SpillState::Unavailable,
        _ => SpillState::None,
    }
}
