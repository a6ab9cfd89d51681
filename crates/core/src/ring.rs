//! The job ring: a bounded log of output chunks at absolute offsets, read by one consumer and any
//! number of observers.

use std::collections::VecDeque;

use crate::ring_chunk::Chunk;
pub use crate::ring_chunk::{ChunkKind, ReadMeta, RingRead, Segment, SegmentLen};
use crate::utf8;

/// Retention limits of a ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingOptions {
    /// Bytes retained while the job is live.
    pub live_limit: usize,
    /// Bytes retained after the terminal read.
    pub settled_limit: usize,
}

impl RingOptions {
    pub const DEFAULT_LIVE_LIMIT: usize = 262_144;
    pub const DEFAULT_SETTLED_LIMIT: usize = 16_384;
}

impl Default for RingOptions {
    fn default() -> Self {
        RingOptions {
            live_limit: Self::DEFAULT_LIVE_LIMIT,
            settled_limit: Self::DEFAULT_SETTLED_LIMIT,
        }
    }
}

/// A read into a caller's buffer: the bytes are `buf[..bytes]`, split by `segments`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingReadInto {
    pub bytes: usize,
    pub segments: Vec<SegmentLen>,
    pub meta: ReadMeta,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingState {
    pub total: u64,
    pub earliest: u64,
    pub consumer: u64,
    pub settled: bool,
    pub terminal_read: bool,
    pub retained: u64,
}

/// The ring of one job.
#[derive(Debug)]
pub struct Ring {
    options: RingOptions,
    chunks: VecDeque<Chunk>,
    retained: u64,
    total: u64,
    /// The incomplete sequence held back at the end of stdout and stderr.
    carry: [Vec<u8>; 2],
    /// A gap announced with nothing to store, for the kind's next stored chunk.
    pending_gap: [bool; 3],
    consumer: u64,
    settled: bool,
    terminal_read: bool,
    /// The buffer of a chunk just dropped, for the store that follows to fill instead of allocating: at 256 KiB a
    /// chunk's buffer is mapped and unmapped by the allocator (see the node crate's allocator), so a stream that
    /// turns its ring over would otherwise fault in fresh pages for every chunk. Never kept past that store.
    spare: Vec<u8>,
}

impl Ring {
    pub fn new(options: RingOptions) -> Self {
        Ring {
            options,
            chunks: VecDeque::new(),
            retained: 0,
            total: 0,
            carry: [Vec::new(), Vec::new()],
            pending_gap: [false; 3],
            consumer: 0,
            settled: false,
            terminal_read: false,
            spare: Vec::new(),
        }
    }

    /// Bytes retained now (the live limit, or the settled one after the terminal read).
    pub fn retention(&self) -> usize {
        self.limit() as usize
    }

    /// Appends the newest bytes of a chunk whose oldest `skipped` bytes were never read, as if the whole chunk
    /// had been appended: offsets count every byte, and eviction keeps only what `data` holds (at least the
    /// retention, see `shared::SharedCapture::take_unread`). The held-back sequence of the kind is dropped with
    /// the bytes that followed it, and so is a sequence cut at `data`'s start.
    pub fn append_after_skip(&mut self, kind: ChunkKind, skipped: u64, data: &[u8]) {
        if skipped == 0 || kind == ChunkKind::Log {
            self.append(kind, data, false);
            return;
        }
        let carry = std::mem::take(&mut self.carry[kind.index()]).len() as u64;
        let cut = data
            .iter()
            .take(3)
            .take_while(|&&b| utf8::is_continuation(b))
            .count();
        self.drop_chunks();
        self.total += carry + skipped + cut as u64;
        self.append(kind, &data[cut..], false);
    }

    fn limit(&self) -> u64 {
        (if self.terminal_read {
            self.options.settled_limit
        } else {
            self.options.live_limit
        }) as u64
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn earliest(&self) -> u64 {
        self.chunks.front().map_or(self.total, |c| c.offset)
    }

    pub fn settled(&self) -> bool {
        self.settled
    }

    pub fn state(&self) -> RingState {
        RingState {
            total: self.total,
            earliest: self.earliest(),
            consumer: self.consumer,
            settled: self.settled,
            terminal_read: self.terminal_read,
            retained: self.retained,
        }
    }

    /// Appends a chunk. Stdout and stderr hold back an incomplete sequence at their end until the next
    /// chunk of the same kind (or `settle`) completes it, so no stored chunk ends inside a character.
    pub fn append(&mut self, kind: ChunkKind, data: &[u8], gap: bool) {
        if kind == ChunkKind::Log {
            self.store(kind, &[], data, gap);
            return;
        }
        let k = kind.index();
        if self.carry[k].is_empty() {
            let keep = data.len() - utf8::incomplete_tail_len(data);
            self.store(kind, &[], &data[..keep], gap);
            self.carry[k].extend_from_slice(&data[keep..]);
            return;
        }
        let carry = std::mem::take(&mut self.carry[k]);
        let n = carry.len() + data.len();
        // The incomplete tail lies within the last three bytes, which may reach back into the carry.
        let mut last = [0u8; 3];
        let m = n.min(3);
        for (i, slot) in last[3 - m..].iter_mut().enumerate() {
            let at = n - m + i;
            *slot = if at < carry.len() {
                carry[at]
            } else {
                data[at - carry.len()]
            };
        }
        let keep = n - utf8::incomplete_tail_len(&last[3 - m..]);
        let mut held = Vec::with_capacity(4);
        if keep < carry.len() {
            self.store(kind, &[], &carry[..keep], gap);
            held.extend_from_slice(&carry[keep..]);
            held.extend_from_slice(data);
        } else {
            let cut = keep - carry.len();
            self.store(kind, &carry, &data[..cut], gap);
            held.extend_from_slice(&data[cut..]);
        }
        self.carry[k] = held;
    }

    /// Stores `prefix ++ body` in chunks of at most a quarter of the limit (copying it once), evicting as it goes.
    /// Eviction drops whole chunks: a chunk as large as the limit, pushed out by a small one, would leave the ring
    /// holding little more than the small one. With quarter chunks it holds at least three quarters of the limit.
    fn store(&mut self, kind: ChunkKind, prefix: &[u8], body: &[u8], gap: bool) {
        let k = kind.index();
        let gap = gap || self.pending_gap[k];
        let len = prefix.len() + body.len();
        if len == 0 {
            self.pending_gap[k] = gap;
            self.spare = Vec::new();
            return;
        }
        self.pending_gap[k] = false;
        let limit = self.limit() as usize;
        let (mut prefix, mut body): (&[u8], &[u8]) = (prefix, body);
        if len > limit {
            // Eviction would drop every older chunk and all but this data's last `limit` bytes: only those are
            // copied, from a character's start.
            self.drop_chunks();
            let drop = len - limit;
            let at = |i: usize| {
                if i < prefix.len() {
                    prefix[i]
                } else {
                    body[i - prefix.len()]
                }
            };
            let skip = (drop..len.min(drop + 3))
                .take_while(|&i| utf8::is_continuation(at(i)))
                .count();
            let start = drop + skip;
            self.total += start as u64;
            (prefix, body) = if start < prefix.len() {
                (&prefix[start..], body)
            } else {
                (&[][..], &body[start - prefix.len()..])
            };
        }
        let piece = (limit / 4).max(4);
        let mut first = true;
        while !prefix.is_empty() || !body.is_empty() {
            let cut = utf8::boundary_cut(body, piece.saturating_sub(prefix.len()).max(1));
            self.store_chunk(kind, prefix, &body[..cut], gap && first);
            (prefix, body, first) = (&[], &body[cut..], false);
        }
    }

    /// Stores `prefix ++ body` as one chunk, after the whole chunks it pushes out, then evicts.
    fn store_chunk(&mut self, kind: ChunkKind, prefix: &[u8], body: &[u8], gap: bool) {
        let len = prefix.len() + body.len();
        let offset = self.total;
        self.total += len as u64;
        let limit = self.limit();
        // The whole chunks this one pushes out go first, so that one of their buffers can hold it; what
        // `evict` leaves afterwards is the same.
        while self.retained + len as u64 > limit && !self.chunks.is_empty() {
            self.pop_chunk();
        }
        let mut data = self.buffer(len);
        data.extend_from_slice(prefix);
        data.extend_from_slice(body);
        self.push(Chunk {
            offset,
            kind,
            gap,
            data,
        });
        self.evict();
    }

    /// Drops every chunk, keeping a buffer for the next store.
    fn drop_chunks(&mut self) {
        while !self.chunks.is_empty() {
            self.pop_chunk();
        }
    }

    /// Drops the oldest chunk, keeping the larger of its buffer and the spare for the next store.
    fn pop_chunk(&mut self) {
        if let Some(head) = self.chunks.pop_front() {
            self.retained -= head.data.len() as u64;
            if head.data.capacity() > self.spare.capacity() {
                self.spare = head.data;
            }
        }
    }

    /// An empty buffer for `len` bytes: the spare when it fits them without holding more than twice as much
    /// (a ring's memory must follow what it retains), else a new one. The spare is gone either way.
    fn buffer(&mut self, len: usize) -> Vec<u8> {
        let mut spare = std::mem::take(&mut self.spare);
        if spare.capacity() < len || spare.capacity() > len.saturating_mul(2) {
            return Vec::with_capacity(len);
        }
        spare.clear();
        spare
    }

    fn push(&mut self, chunk: Chunk) {
        self.retained += chunk.data.len() as u64;
        self.chunks.push_back(chunk);
    }

    fn evict(&mut self) {
        let limit = self.limit();
        while self.retained > limit && self.chunks.len() > 1 {
            if let Some(head) = self.chunks.pop_front() {
                self.retained -= head.data.len() as u64;
            }
        }
        if self.retained <= limit {
            return;
        }
        let Some(head) = self.chunks.front_mut() else {
            return;
        };
        let drop = head.data.len() - limit as usize;
        let start = drop + utf8::start_skip(&head.data[drop..]);
        // A fresh allocation, not a drain: the point of shrinking is to give the memory back.
        head.data = head.data[start..].to_vec();
        head.offset += start as u64;
        self.retained -= start as u64;
        if head.data.is_empty() {
            self.chunks.pop_front();
        }
    }

    /// Appends every held-back sequence (stdout first, then stderr) and marks the ring settled; later
    /// appends are still accepted. Idempotent.
    pub fn settle(&mut self) {
        for kind in [ChunkKind::Stdout, ChunkKind::Stderr] {
            let carry = std::mem::take(&mut self.carry[kind.index()]);
            self.store(kind, &[], &carry, false);
        }
        self.settled = true;
    }
}

mod reads;
#[cfg(test)]
mod tests;
