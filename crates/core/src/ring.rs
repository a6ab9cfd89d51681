//! The job ring: a bounded log of output chunks at absolute offsets, read by one consumer and any
//! number of observers.

use std::collections::VecDeque;
use std::convert::Infallible;

use crate::error::Error;
use crate::ring_view::{Plan, RingView};
use crate::utf8;

/// What produced a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    Stdout,
    Stderr,
    /// Text the job runtime adds itself; stored as given, never held back.
    Log,
}

impl ChunkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkKind::Stdout => "stdout",
            ChunkKind::Stderr => "stderr",
            ChunkKind::Log => "log",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "stdout" => Some(ChunkKind::Stdout),
            "stderr" => Some(ChunkKind::Stderr),
            "log" => Some(ChunkKind::Log),
            _ => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

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

#[derive(Debug)]
pub(crate) struct Chunk {
    pub offset: u64,
    pub kind: ChunkKind,
    pub gap: bool,
    pub data: Vec<u8>,
}

impl Chunk {
    fn end(&self) -> u64 {
        self.offset + self.data.len() as u64
    }
}

/// What every read reports besides its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadMeta {
    /// Absolute offset of the first byte returned.
    pub from: u64,
    /// Offset just after the last byte returned.
    pub to: u64,
    /// Bytes between the requested offset and `from` were evicted.
    pub lossy: bool,
    pub total: u64,
    pub earliest: u64,
    pub settled: bool,
}

/// One run of bytes from a single chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub kind: ChunkKind,
    /// Bytes were lost just before this segment's chunk.
    pub gap: bool,
    pub data: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingRead {
    pub segments: Vec<Segment>,
    pub meta: ReadMeta,
}

/// A segment of a read into a caller's buffer: its bytes follow the previous segment's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentLen {
    pub kind: ChunkKind,
    pub gap: bool,
    pub length: usize,
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
        }
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

    /// Stores `prefix ++ body` as one chunk (copying it once), then evicts.
    fn store(&mut self, kind: ChunkKind, prefix: &[u8], body: &[u8], gap: bool) {
        let k = kind.index();
        let gap = gap || self.pending_gap[k];
        let len = prefix.len() + body.len();
        if len == 0 {
            self.pending_gap[k] = gap;
            return;
        }
        self.pending_gap[k] = false;
        let offset = self.total;
        self.total += len as u64;
        let limit = self.limit();
        if len as u64 > limit {
            // Eviction would drop every older chunk and keep only this one's last `limit` bytes, so
            // copy just those.
            self.chunks.clear();
            self.retained = 0;
            let drop = len - limit as usize;
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
            if start < len {
                let mut data = Vec::with_capacity(len - start);
                if start < prefix.len() {
                    data.extend_from_slice(&prefix[start..]);
                    data.extend_from_slice(body);
                } else {
                    data.extend_from_slice(&body[start - prefix.len()..]);
                }
                self.push(Chunk {
                    offset: offset + start as u64,
                    kind,
                    gap,
                    data,
                });
            }
            return;
        }
        let mut data = Vec::with_capacity(len);
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

    /// Plans a read of at most `max` bytes from `requested`. With `fit`, the read never passes `max` (a
    /// caller's buffer cannot grow): a character that does not fit is left for the next read.
    fn plan(&self, requested: u64, max: usize, fit: bool) -> Plan {
        let earliest = self.earliest();
        let lossy = requested < earliest;
        let start = requested.max(earliest).min(self.total);
        let first = self.chunks.partition_point(|c| c.end() <= start);
        // Chunks are contiguous from `earliest`, so the first chunk ending after `start` holds it.
        let head = self
            .chunks
            .get(first)
            .map_or(0, |c| (start - c.offset) as usize);
        let (mut count, mut end, mut taken, mut pos) = (0, 0, 0usize, head);
        for chunk in self.chunks.range(first..) {
            let room = max - taken;
            if room == 0 {
                break;
            }
            let bytes = &chunk.data[pos..];
            if bytes.len() <= room {
                count += 1;
                end = chunk.data.len();
                taken += bytes.len();
                pos = 0;
                continue;
            }
            let cut = utf8::boundary_cut(bytes, room);
            if !(fit && cut > room) {
                count += 1;
                end = pos + cut;
                taken += cut;
            }
            break;
        }
        let meta = ReadMeta {
            from: start,
            to: start + taken as u64,
            lossy,
            total: self.total,
            earliest,
            settled: self.settled,
        };
        Plan {
            first,
            count,
            head,
            end,
            meta,
        }
    }

    fn view(&self, plan: Plan) -> RingView<'_> {
        RingView::new(&self.chunks, plan)
    }

    /// An observer read as a view of the ring's own bytes, changing nothing.
    pub fn observe_view(&self, from: u64, max: usize) -> RingView<'_> {
        self.view(self.plan(from, max, false))
    }

    /// An observer read: bytes from `from`, changing nothing.
    pub fn observe(&self, from: u64, max: usize) -> RingRead {
        self.observe_view(from, max).to_read()
    }

    /// A consumer read of at most `max` bytes (more only when not one character fits), handed to `f` as a
    /// view before anything moves. The cursor moves to the read's end only when `f` returns `Ok`, so a
    /// caller that cannot take the bytes (its output could not be allocated) leaves them for the next read.
    ///
    /// # Errors
    ///
    /// Whatever `f` returns.
    pub fn read_with<T, E>(
        &mut self,
        max: usize,
        f: impl FnOnce(&RingView<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let plan = self.plan(self.consumer, max, false);
        let out = f(&self.view(plan))?;
        self.consumed(plan.meta.to);
        Ok(out)
    }

    /// A consumer read of at most `max` bytes: moves the cursor.
    pub fn read(&mut self, max: usize) -> RingRead {
        match self.read_with(max, |view| Ok::<_, Infallible>(view.to_read())) {
            Ok(read) => read,
            Err(never) => match never {},
        }
    }

    /// A consumer read that never passes `max` (the length of the caller's buffer): a character that does
    /// not fit stays for the next read, so this may take fewer bytes than [`Ring::read`] with the same
    /// `max` would. Like [`Ring::read_with`], the cursor moves only when `f` returns `Ok`; the outer
    /// result is the ring's own verdict, the inner one `f`'s.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `max` cannot hold even the next character; `f` is not called and the
    /// cursor stays.
    pub fn read_fitting_with<T, E>(
        &mut self,
        max: usize,
        f: impl FnOnce(&RingView<'_>) -> Result<T, E>,
    ) -> Result<Result<T, E>, Error> {
        let plan = self.plan(self.consumer, max, true);
        if plan.count == 0 && plan.meta.from < self.total && max > 0 {
            let chunk = &self.chunks[plan.first];
            let pos = (plan.meta.from - chunk.offset) as usize;
            let needed = utf8::boundary_cut(&chunk.data[pos..], max);
            return Err(Error::BufferTooSmall {
                needed,
                available: max,
            });
        }
        let out = f(&self.view(plan));
        if out.is_ok() {
            self.consumed(plan.meta.to);
        }
        Ok(out)
    }

    /// A consumer read into `buf`, which bounds it (see [`Ring::read_fitting_with`]).
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when `buf` cannot hold even the next character; the cursor stays.
    pub fn read_into(&mut self, buf: &mut [u8]) -> Result<RingReadInto, Error> {
        let read = self.read_fitting_with(buf.len(), |view| {
            Ok::<_, Infallible>(RingReadInto {
                bytes: view.copy_to(buf),
                segments: view.segment_lengths(),
                meta: view.meta(),
            })
        })?;
        match read {
            Ok(read) => Ok(read),
            Err(never) => match never {},
        }
    }

    fn consumed(&mut self, to: u64) {
        self.consumer = to;
        if self.settled && to == self.total && !self.terminal_read {
            self.terminal_read = true;
            self.evict();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring_view::SegmentRef;
    use ChunkKind::*;

    fn ring(live: usize, settled: usize) -> Ring {
        Ring::new(RingOptions {
            live_limit: live,
            settled_limit: settled,
        })
    }

    fn seg(kind: ChunkKind, gap: bool, data: &[u8]) -> Segment {
        Segment {
            kind,
            gap,
            data: data.to_vec(),
        }
    }

    fn bytes(read: &RingRead) -> Vec<u8> {
        read.segments
            .iter()
            .flat_map(|s| s.data.iter().copied())
            .collect()
    }

    #[test]
    fn defaults() {
        let o = RingOptions::default();
        assert_eq!((o.live_limit, o.settled_limit), (262_144, 16_384));
    }

    #[test]
    fn appends_at_absolute_offsets() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"abc", false);
        r.append(Stderr, b"de", false);
        r.append(Log, b"[x]", false);
        let read = r.observe(0, 100);
        assert_eq!(
            read.segments,
            vec![
                seg(Stdout, false, b"abc"),
                seg(Stderr, false, b"de"),
                seg(Log, false, b"[x]")
            ]
        );
        assert_eq!(
            read.meta,
            ReadMeta {
                from: 0,
                to: 8,
                lossy: false,
                total: 8,
                earliest: 0,
                settled: false
            }
        );
    }

    #[test]
    fn holds_back_an_incomplete_sequence_per_kind() {
        let mut r = ring(100, 10);
        let e = "€".as_bytes();
        r.append(Stdout, &[b'a', e[0]], false);
        r.append(Stderr, b"!", false);
        assert_eq!(r.total(), 2);
        r.append(Stdout, &e[1..2], false);
        assert_eq!(r.total(), 2, "still incomplete: nothing stored");
        r.append(Stdout, &[e[2], b'b'], false);
        let read = r.observe(0, 100);
        assert_eq!(
            read.segments,
            vec![
                seg(Stdout, false, b"a"),
                seg(Stderr, false, b"!"),
                seg(Stdout, false, "€b".as_bytes())
            ]
        );
    }

    #[test]
    fn log_chunks_are_stored_as_given() {
        let mut r = ring(100, 10);
        r.append(Log, &[b'x', 0xE2], false);
        assert_eq!(r.total(), 2);
        assert_eq!(
            r.observe(0, 10).segments,
            vec![seg(Log, false, &[b'x', 0xE2])]
        );
    }

    #[test]
    fn a_gap_with_nothing_stored_goes_on_the_next_chunk_of_its_kind() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"", true);
        r.append(Stderr, b"e", false);
        r.append(Stdout, b"o", false);
        r.append(Stdout, b"p", false);
        let read = r.observe(0, 100);
        assert_eq!(
            read.segments,
            vec![
                seg(Stderr, false, b"e"),
                seg(Stdout, true, b"o"),
                seg(Stdout, false, b"p")
            ]
        );
    }

    #[test]
    fn a_gap_is_carried_only_from_the_chunks_first_byte() {
        let mut r = ring(100, 10);
        r.append(Log, b"abcd", true);
        assert_eq!(r.observe(0, 100).segments, vec![seg(Log, true, b"abcd")]);
        assert_eq!(r.observe(1, 100).segments, vec![seg(Log, false, b"bcd")]);
    }

    #[test]
    fn evicts_whole_head_chunks() {
        let mut r = ring(10, 4);
        r.append(Stdout, b"aaaa", false);
        r.append(Stdout, b"bbbb", false);
        r.append(Stdout, b"cccc", false);
        let read = r.observe(0, 100);
        assert!(read.meta.lossy);
        assert_eq!(read.meta.earliest, 4);
        assert_eq!(bytes(&read), b"bbbbcccc");
        assert_eq!(r.state().retained, 8);
    }

    #[test]
    fn a_single_chunk_over_the_limit_keeps_its_last_bytes_start_skipped() {
        let mut r = ring(4, 4);
        r.append(Stdout, b"ab", false);
        r.append(Stdout, "xy€".as_bytes(), false); // 78 79 E2 82 AC: last 4 = 79 E2 82 AC
        let read = r.observe(0, 100);
        assert_eq!(read.segments, vec![seg(Stdout, false, "y€".as_bytes())]);
        assert_eq!((read.meta.earliest, read.meta.total), (3, 7));
        r.append(Log, "€€".as_bytes(), false); // last 4 = AC E2 82 AC: skip 1
        let read = r.observe(0, 100);
        assert_eq!(read.segments, vec![seg(Log, false, "€".as_bytes())]);
        assert_eq!((read.meta.earliest, read.meta.total), (10, 13));
    }

    #[test]
    fn an_oversized_chunk_with_a_carry_keeps_the_right_bytes() {
        let mut r = ring(3, 3);
        let e = "€".as_bytes();
        r.append(Stdout, &e[..1], false);
        r.append(Stdout, &[e[1], e[2], b'a', b'b'], false); // E2 82 AC a b: last 3 = AC a b: skip 1
        let read = r.observe(0, 100);
        assert_eq!(read.segments, vec![seg(Stdout, false, b"ab")]);
        assert_eq!(read.meta.earliest, 3);
        assert_eq!(read.meta.total, 5);
    }

    #[test]
    fn read_cuts_the_chunk_that_does_not_fit_at_a_boundary() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"ab", false);
        r.append(Stderr, "c€d".as_bytes(), false);
        let read = r.observe(0, 4);
        assert_eq!(
            read.segments,
            vec![seg(Stdout, false, b"ab"), seg(Stderr, false, b"c")]
        );
        assert_eq!(read.meta.to, 3);
        let read = r.observe(3, 1);
        assert_eq!(
            read.segments,
            vec![seg(Stderr, false, "€".as_bytes())],
            "at least one character"
        );
        assert_eq!(read.meta.to, 6);
    }

    #[test]
    fn nothing_is_taken_after_a_cut() {
        let mut r = ring(100, 10);
        r.append(Log, "é".as_bytes(), false);
        r.append(Log, b"z", false);
        let read = r.observe(0, 1);
        assert_eq!(bytes(&read), "é".as_bytes());
        assert_eq!(read.meta.to, 2);
    }

    #[test]
    fn a_read_from_the_middle_of_a_chunk() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"hello", false);
        let read = r.observe(2, 2);
        assert_eq!(read.segments, vec![seg(Stdout, false, b"ll")]);
        assert_eq!((read.meta.from, read.meta.to), (2, 4));
        let read = r.observe(50, 2);
        assert_eq!(read.segments, vec![]);
        assert_eq!(
            (read.meta.from, read.meta.to, read.meta.lossy),
            (5, 5, false)
        );
    }

    #[test]
    fn consumer_reads_move_the_cursor_and_observers_do_not() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"abcdef", false);
        assert_eq!(bytes(&r.observe(0, 3)), b"abc");
        assert_eq!(r.state().consumer, 0);
        assert_eq!(bytes(&r.read(4)), b"abcd");
        assert_eq!(r.state().consumer, 4);
        assert_eq!(bytes(&r.read(4)), b"ef");
        assert_eq!(bytes(&r.read(4)), b"");
        assert_eq!(r.state().consumer, 6);
    }

    #[test]
    fn a_lagging_consumer_is_flagged_lossy() {
        let mut r = ring(4, 4);
        r.append(Stdout, b"aaaa", false);
        r.append(Stdout, b"bbbb", false);
        let read = r.read(100);
        assert!(read.meta.lossy);
        assert_eq!((read.meta.from, read.meta.to), (4, 8));
        assert!(!r.read(100).meta.lossy);
    }

    #[test]
    fn settle_flushes_carries_stdout_first() {
        let mut r = ring(100, 10);
        r.append(Stderr, &[0xE2, 0x82], false);
        r.append(Stdout, &[0xC3], false);
        assert_eq!(r.total(), 0);
        r.settle();
        r.settle();
        let read = r.observe(0, 100);
        assert_eq!(
            read.segments,
            vec![
                seg(Stdout, false, &[0xC3]),
                seg(Stderr, false, &[0xE2, 0x82])
            ]
        );
        assert!(read.meta.settled);
        r.append(Log, b"late", false);
        assert_eq!(r.total(), 7);
    }

    #[test]
    fn settle_puts_a_pending_gap_on_the_flushed_carry() {
        let mut r = ring(100, 10);
        r.append(Stdout, &[0xC3], false);
        r.append(Stdout, b"", true);
        r.settle();
        assert_eq!(r.observe(0, 10).segments, vec![seg(Stdout, true, &[0xC3])]);
    }

    #[test]
    fn unread_bytes_survive_settlement_until_the_terminal_read() {
        let mut r = ring(100, 4);
        r.append(Stdout, b"0123456789", false);
        r.settle();
        assert_eq!(r.state().retained, 10);
        let first = r.read(6);
        assert_eq!(bytes(&first), b"012345");
        assert!(!r.state().terminal_read);
        assert_eq!(r.state().retained, 10);
        let last = r.read(100);
        assert_eq!(bytes(&last), b"6789");
        let state = r.state();
        assert!(state.terminal_read);
        assert_eq!(state.retained, 4);
        assert_eq!(state.earliest, 6);
        assert!(r.observe(0, 100).meta.lossy);
    }

    #[test]
    fn a_terminal_read_needs_settlement() {
        let mut r = ring(100, 1);
        r.append(Stdout, b"abc", false);
        r.read(100);
        assert!(!r.state().terminal_read);
        r.settle();
        r.read(100);
        assert!(r.state().terminal_read);
        assert_eq!(r.state().retained, 1);
    }

    #[test]
    fn read_into_fills_the_buffer_and_splits_segments() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"ab", false);
        r.append(Stderr, b"cd", false);
        let mut buf = [0u8; 3];
        let got = r.read_into(&mut buf).unwrap();
        assert_eq!(&buf[..got.bytes], b"abc");
        assert_eq!(
            got.segments,
            vec![
                SegmentLen {
                    kind: Stdout,
                    gap: false,
                    length: 2
                },
                SegmentLen {
                    kind: Stderr,
                    gap: false,
                    length: 1
                }
            ]
        );
        assert_eq!(got.meta.to, 3);
        assert_eq!(r.state().consumer, 3);
    }

    #[test]
    fn read_into_leaves_a_character_that_does_not_fit() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"a", false);
        r.append(Stdout, "😀".as_bytes(), false);
        let mut buf = [0u8; 3];
        let got = r.read_into(&mut buf).unwrap();
        assert_eq!(got.bytes, 1);
        assert_eq!(r.state().consumer, 1);
        let err = r.read_into(&mut buf).unwrap_err();
        assert_eq!(
            err,
            Error::BufferTooSmall {
                needed: 4,
                available: 3
            }
        );
        assert_eq!(r.state().consumer, 1);
        let mut big = [0u8; 8];
        let got = r.read_into(&mut big).unwrap();
        assert_eq!(&big[..got.bytes], "😀".as_bytes());
    }

    #[test]
    fn a_read_with_a_failing_caller_leaves_the_cursor() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"abc", false);
        r.settle();
        let failed: Result<(), &str> = r.read_with(100, |view| {
            assert_eq!(view.len(), 3);
            Err("no room")
        });
        assert_eq!(failed, Err("no room"));
        assert_eq!(r.state().consumer, 0);
        assert!(
            !r.state().terminal_read,
            "a failed read is not the terminal read"
        );
        let got: Result<Vec<u8>, ()> =
            r.read_with(100, |view| Ok(view.to_read().segments[0].data.clone()));
        assert_eq!(got.unwrap(), b"abc");
        assert_eq!(r.state().consumer, 3);
        assert!(r.state().terminal_read);
    }

    #[test]
    fn a_view_yields_the_segments_of_the_read_and_copies_them_in_order() {
        let mut r = ring(100, 10);
        r.append(Stdout, b"hello", true);
        r.append(Stderr, b"e", false);
        r.append(Log, "x€y".as_bytes(), false);
        let view = r.observe_view(1, 7);
        assert_eq!(view.len(), 6);
        assert_eq!(view.segment_count(), 3);
        let segments: Vec<SegmentRef<'_>> = view.segments().collect();
        assert_eq!(
            segments,
            vec![
                SegmentRef {
                    kind: Stdout,
                    gap: false,
                    data: b"ello"
                },
                SegmentRef {
                    kind: Stderr,
                    gap: false,
                    data: b"e"
                },
                SegmentRef {
                    kind: Log,
                    gap: false,
                    data: b"x"
                },
            ]
        );
        let mut out = [0u8; 8];
        assert_eq!(view.copy_to(&mut out), 6);
        assert_eq!(&out[..6], b"elloex");
        assert_eq!(view.to_read(), r.observe(1, 7));
        assert!(r.observe_view(0, 1).segments().next().unwrap().gap);
    }

    #[test]
    fn a_fitting_read_refuses_a_buffer_too_small_without_calling_the_caller() {
        let mut r = ring(100, 10);
        r.append(Stdout, "😀".as_bytes(), false);
        let refused = r.read_fitting_with(3, |_| -> Result<(), ()> { panic!("called") });
        assert_eq!(
            refused,
            Err(Error::BufferTooSmall {
                needed: 4,
                available: 3
            })
        );
        let declined = r.read_fitting_with(8, |view| {
            assert_eq!(view.len(), 4);
            Err::<(), _>("declined")
        });
        assert_eq!(declined, Ok(Err("declined")));
        assert_eq!(r.state().consumer, 0);
        let taken = r.read_fitting_with(8, |view| Ok::<_, ()>(view.len()));
        assert_eq!(taken, Ok(Ok(4)));
        assert_eq!(r.state().consumer, 4);
    }
}
