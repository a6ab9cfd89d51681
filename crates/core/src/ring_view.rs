//! A planned ring read whose bytes still live in the ring's chunks, so a binding can size its output and
//! copy straight into memory it owns instead of going through an intermediate `Vec`.

use std::collections::VecDeque;

use crate::ring_chunk::{Chunk, ChunkKind, ReadMeta, RingRead, Segment, SegmentLen};

/// What a read takes: `count` consecutive chunks from `first`, starting at `head` in the first chunk
/// and ending at `end` in the last. Plain numbers, so planning a read allocates nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    pub first: usize,
    pub count: usize,
    pub head: usize,
    pub end: usize,
    pub meta: ReadMeta,
}

/// One segment of a view: a run of bytes from a single chunk, borrowed from the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentRef<'r> {
    pub kind: ChunkKind,
    /// Bytes were lost just before this segment's chunk.
    pub gap: bool,
    pub data: &'r [u8],
}

/// A read as planned, before any byte is copied; valid while the ring is borrowed.
#[derive(Debug, Clone, Copy)]
pub struct RingView<'r> {
    chunks: &'r VecDeque<Chunk>,
    plan: Plan,
}

impl<'r> RingView<'r> {
    pub(crate) fn new(chunks: &'r VecDeque<Chunk>, plan: Plan) -> Self {
        RingView { chunks, plan }
    }

    pub fn meta(&self) -> ReadMeta {
        self.plan.meta
    }

    /// Bytes in the read (`to - from`).
    pub fn len(&self) -> usize {
        (self.plan.meta.to - self.plan.meta.from) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn segment_count(&self) -> usize {
        self.plan.count
    }

    /// The segments in ring order; none is empty.
    pub fn segments(&self) -> impl ExactSizeIterator<Item = SegmentRef<'r>> + 'r {
        let Plan {
            first,
            count,
            head,
            end,
            ..
        } = self.plan;
        let chunks = self.chunks;
        (0..count).map(move |i| {
            let chunk = &chunks[first + i];
            let start = if i == 0 { head } else { 0 };
            let stop = if i + 1 == count {
                end
            } else {
                chunk.data.len()
            };
            SegmentRef {
                kind: chunk.kind,
                gap: chunk.gap && start == 0,
                data: &chunk.data[start..stop],
            }
        })
    }

    /// Copies the read's bytes to the start of `out`, segment after segment; returns how many.
    ///
    /// # Panics
    ///
    /// When `out` is shorter than [`RingView::len`].
    pub fn copy_to(&self, out: &mut [u8]) -> usize {
        let mut at = 0;
        for segment in self.segments() {
            let n = segment.data.len();
            out[at..at + n].copy_from_slice(segment.data);
            at += n;
        }
        at
    }

    /// The lengths of the segments, for a read whose bytes went into one buffer.
    pub fn segment_lengths(&self) -> Vec<SegmentLen> {
        self.segments()
            .map(|s| SegmentLen {
                kind: s.kind,
                gap: s.gap,
                length: s.data.len(),
            })
            .collect()
    }

    /// The read with its bytes copied out, one `Vec` per segment.
    pub fn to_read(&self) -> RingRead {
        RingRead {
            segments: self
                .segments()
                .map(|s| Segment {
                    kind: s.kind,
                    gap: s.gap,
                    data: s.data.to_vec(),
                })
                .collect(),
            meta: self.plan.meta,
        }
    }
}
