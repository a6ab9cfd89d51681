//! The per-stream tail buffer: the last `cap` bytes of a stream in a circular buffer, plus a byte count.

use crate::line_start;
use crate::utf8;

/// An observer read of a tail: bytes from an absolute stream offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    pub data: Vec<u8>,
    /// Absolute stream offset of `data[0]`.
    pub from: u64,
    /// The offset to pass to the next read.
    pub next: u64,
    /// Bytes between the requested offset and `from` were no longer retained.
    pub lossy: bool,
}

/// The last `cap` bytes of a stream.
///
/// The buffer grows with the stream up to `cap` (most commands print far less than the cap, so a capture
/// never reserves memory it does not use), then wraps: `head` is the index of the oldest byte.
#[derive(Debug)]
pub struct Tail {
    cap: usize,
    buf: Vec<u8>,
    head: usize,
    total: u64,
}

impl Tail {
    pub fn new(cap: usize) -> Self {
        Tail {
            cap,
            buf: Vec::new(),
            head: 0,
            total: 0,
        }
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Every byte ever written.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes were dropped from the front.
    pub fn dropped(&self) -> bool {
        self.total > self.cap as u64
    }

    pub fn write(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        let cap = self.cap;
        if cap == 0 || data.is_empty() {
            return;
        }
        if data.len() >= cap {
            // The chunk alone fills the buffer: one copy of its last `cap` bytes.
            self.buf.clear();
            self.buf.extend_from_slice(&data[data.len() - cap..]);
            self.head = 0;
            return;
        }
        let mut rest = data;
        if self.buf.len() < cap {
            let room = cap - self.buf.len();
            let take = room.min(rest.len());
            self.buf.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if rest.is_empty() {
                return;
            }
        }
        // Full: overwrite the oldest bytes, wrapping at most once since `rest.len() < cap`.
        let first = (cap - self.head).min(rest.len());
        self.buf[self.head..self.head + first].copy_from_slice(&rest[..first]);
        let second = rest.len() - first;
        self.buf[..second].copy_from_slice(&rest[first..]);
        self.head = (self.head + rest.len()) % cap;
    }

    /// Writes the newest bytes of a chunk whose oldest `skipped` bytes were never read (see
    /// `shared::SharedCapture::take_unread`): the same window as writing the whole chunk, when `data` holds at
    /// least `cap` bytes; with fewer, the window is `data` alone, never older bytes across the hole.
    pub fn write_after_skip(&mut self, skipped: u64, data: &[u8]) {
        if skipped > 0 {
            self.buf.clear();
            self.head = 0;
        }
        self.total += skipped;
        self.write(data);
    }

    /// The retained bytes in stream order, before the start skip, as at most two slices.
    fn raw_slices(&self) -> (&[u8], &[u8]) {
        if self.buf.len() < self.cap || self.head == 0 {
            (&self.buf[..], &[])
        } else {
            (&self.buf[self.head..], &self.buf[..self.head])
        }
    }

    /// The window as at most two slices in stream order, with the window skip (a line boundary near the
    /// start, else the UTF-8 start skip) applied when bytes were dropped.
    pub fn window_slices(&self) -> (&[u8], &[u8]) {
        let (a, b) = self.raw_slices();
        if !self.dropped() {
            return (a, b);
        }
        let skip = line_start::window_skip(a, b);
        if skip <= a.len() {
            (&a[skip..], b)
        } else {
            (&b[skip - a.len()..], &[])
        }
    }

    pub fn window_len(&self) -> usize {
        let (a, b) = self.window_slices();
        a.len() + b.len()
    }

    /// The retained window: the last `min(total, cap)` bytes, start-skipped when bytes were dropped.
    pub fn window(&self) -> Vec<u8> {
        let (a, b) = self.window_slices();
        let mut out = Vec::with_capacity(a.len() + b.len());
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        out
    }

    /// The absolute stream offset of the window's first byte.
    pub fn window_start(&self) -> u64 {
        self.total - self.window_len() as u64
    }

    /// Reads from the absolute offset `from` without changing anything. Unless the stream is finished, an
    /// incomplete sequence at the end is left for a later read; at most `max` bytes are returned, cut at
    /// a character boundary (more only when not one character fits, see [`utf8::boundary_cut`]).
    pub fn observe(&self, from: u64, max: usize, finished: bool) -> Observed {
        self.observe_view(from, max, finished).to_observed()
    }

    /// [`Tail::observe`] as a view of the tail's own buffer, so a caller can copy the bytes straight into
    /// memory it owns.
    pub fn observe_view(&self, from: u64, max: usize, finished: bool) -> ObservedView<'_> {
        let ws = self.window_start();
        let start = from.max(ws).min(self.total);
        let lossy = from < ws;
        let (a, b) = self.window_slices();
        let offset = (start - ws) as usize;
        let (p, q) = if offset < a.len() {
            (&a[offset..], b)
        } else {
            (&b[offset - a.len()..], &[][..])
        };
        let at = |i: usize| if i < p.len() { p[i] } else { q[i - p.len()] };
        let mut n = p.len() + q.len();
        if !finished {
            // The incomplete tail lies within the last three bytes, which may straddle the wrap point.
            let m = n.min(3);
            let mut last = [0u8; 3];
            for (i, slot) in last[..m].iter_mut().enumerate() {
                *slot = at(n - m + i);
            }
            n -= utf8::incomplete_tail_len(&last[..m]);
        }
        if n > max {
            n = utf8::boundary_cut_by(n, max, at);
        }
        let parts = if n <= p.len() {
            [&p[..n], &[][..]]
        } else {
            [p, &q[..n - p.len()]]
        };
        ObservedView {
            parts,
            from: start,
            next: start + n as u64,
            lossy,
        }
    }
}

/// An observer read of a tail whose bytes are still in the tail's buffer: at most two runs (the window
/// wraps) in stream order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservedView<'t> {
    pub parts: [&'t [u8]; 2],
    /// Absolute stream offset of the first byte.
    pub from: u64,
    /// The offset to pass to the next read.
    pub next: u64,
    /// Bytes between the requested offset and `from` were no longer retained.
    pub lossy: bool,
}

impl ObservedView<'_> {
    pub fn len(&self) -> usize {
        self.parts[0].len() + self.parts[1].len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies the bytes to the start of `out`; returns how many.
    ///
    /// # Panics
    ///
    /// When `out` is shorter than [`ObservedView::len`].
    pub fn copy_to(&self, out: &mut [u8]) -> usize {
        let [p, q] = self.parts;
        out[..p.len()].copy_from_slice(p);
        out[p.len()..p.len() + q.len()].copy_from_slice(q);
        p.len() + q.len()
    }

    pub fn to_observed(&self) -> Observed {
        Observed {
            data: self.parts.concat(),
            from: self.from,
            next: self.next,
            lossy: self.lossy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_after_skipped_bytes_keeps_the_window_of_the_whole_chunk() {
        let mut whole = Tail::new(4);
        whole.write(b"ab");
        whole.write(b"0123456789");
        let mut skipping = Tail::new(4);
        skipping.write(b"ab");
        skipping.write_after_skip(4, b"456789");
        assert_eq!(
            (skipping.total(), skipping.window()),
            (whole.total(), whole.window())
        );
        // Fewer new bytes than the cap: the window holds them alone, never bytes from before the hole.
        skipping.write_after_skip(10, b"xy");
        assert_eq!((skipping.total(), skipping.window()), (24, b"xy".to_vec()));
    }

    #[test]
    fn keeps_everything_below_the_cap() {
        let mut t = Tail::new(10);
        t.write(b"abc");
        t.write(b"def");
        assert_eq!(t.window(), b"abcdef");
        assert_eq!(t.total(), 6);
        assert!(!t.dropped());
        assert_eq!(t.window_start(), 0);
    }

    #[test]
    fn keeps_the_last_cap_bytes_across_wraps() {
        let mut t = Tail::new(5);
        t.write(b"abc");
        t.write(b"defg");
        assert_eq!(t.window(), b"cdefg");
        t.write(b"hi");
        assert_eq!(t.window(), b"efghi");
        t.write(b"jklm");
        assert_eq!(t.window(), b"ijklm");
        assert!(t.dropped());
        assert_eq!(t.total(), 13);
        assert_eq!(t.window_start(), 8);
    }

    #[test]
    fn a_chunk_longer_than_the_cap_keeps_its_last_bytes() {
        let mut t = Tail::new(4);
        t.write(b"xy");
        t.write(b"0123456789");
        assert_eq!(t.window(), b"6789");
        assert_eq!(t.total(), 12);
    }

    #[test]
    fn exactly_cap_bytes_is_not_dropped() {
        let mut t = Tail::new(4);
        t.write(b"abcd");
        assert!(!t.dropped());
        t.write(b"e");
        assert!(t.dropped());
    }

    #[test]
    fn zero_cap_keeps_nothing_but_counts() {
        let mut t = Tail::new(0);
        t.write(b"hello");
        assert_eq!(t.window(), b"");
        assert_eq!(t.total(), 5);
        assert!(t.dropped());
        assert_eq!(t.window_start(), 5);
        let o = t.observe(0, 10, false);
        assert_eq!(
            o,
            Observed {
                data: vec![],
                from: 5,
                next: 5,
                lossy: true
            }
        );
    }

    #[test]
    fn window_skips_a_cut_sequence_after_dropping() {
        let mut t = Tail::new(4);
        t.write("ab€".as_bytes()); // 61 62 E2 82 AC: the window holds 62 E2 82 AC
        assert_eq!(t.window(), "b€".as_bytes());
        t.write(b"z"); // holds E2 82 AC 7A: starts at a lead
        assert_eq!(t.window(), "€z".as_bytes());
        t.write(b"y"); // holds 82 AC 7A 79: skip 2
        assert_eq!(t.window(), b"zy");
        assert_eq!(t.window_start(), 7 - 2);
    }

    #[test]
    fn start_skip_applies_across_the_wrap_point() {
        let mut t = Tail::new(4);
        t.write(b"abc");
        t.write("€".as_bytes()); // buffer full: a b c E2 then wrap 82 AC over a b
        assert_eq!(t.window(), "c€".as_bytes());
        t.write(b"d"); // E2 82 AC d starts at a lead
        assert_eq!(t.window(), "€d".as_bytes());
        t.write(b"e"); // 82 AC d e: the head is in the middle of the ring
        assert_eq!(t.window(), b"de");
    }

    #[test]
    fn start_skip_is_not_applied_before_dropping() {
        let mut t = Tail::new(8);
        t.write(&[0x80, 0x80, b'a']);
        assert_eq!(t.window(), vec![0x80, 0x80, b'a']);
    }

    #[test]
    fn observe_reads_from_an_offset_without_moving_anything() {
        let mut t = Tail::new(8);
        t.write(b"hello world");
        let o = t.observe(0, 100, false);
        assert_eq!(
            o,
            Observed {
                data: b"lo world".to_vec(),
                from: 3,
                next: 11,
                lossy: true
            }
        );
        let o = t.observe(5, 100, false);
        assert_eq!(
            o,
            Observed {
                data: b" world".to_vec(),
                from: 5,
                next: 11,
                lossy: false
            }
        );
        let o = t.observe(5, 3, false);
        assert_eq!(
            o,
            Observed {
                data: b" wo".to_vec(),
                from: 5,
                next: 8,
                lossy: false
            }
        );
        let o = t.observe(99, 3, false);
        assert_eq!(
            o,
            Observed {
                data: vec![],
                from: 11,
                next: 11,
                lossy: false
            }
        );
        assert_eq!(t.window(), b"lo world");
    }

    #[test]
    fn observe_holds_back_an_incomplete_sequence_until_finished() {
        let mut t = Tail::new(16);
        let e = "€".as_bytes();
        t.write(b"ab");
        t.write(&e[..2]);
        assert_eq!(t.observe(0, 100, false).data, b"ab");
        assert_eq!(t.observe(0, 100, false).next, 2);
        assert_eq!(t.observe(0, 100, true).data, [b'a', b'b', e[0], e[1]]);
        t.write(&e[2..]);
        assert_eq!(t.observe(2, 100, false).data, e);
    }

    #[test]
    fn observe_cuts_at_a_boundary() {
        let mut t = Tail::new(16);
        t.write("a€b".as_bytes());
        assert_eq!(t.observe(0, 3, false).data, b"a");
        assert_eq!(t.observe(1, 1, false).data, "€".as_bytes());
    }

    #[test]
    fn an_observe_view_spans_the_wrap_point_and_cuts_across_it() {
        let mut t = Tail::new(6);
        t.write(b"abcd");
        t.write("x€".as_bytes()); // buffer wraps: the window is "cdx€" = 63 64 78 E2 82 AC
        let (a, b) = t.window_slices();
        assert!(
            !a.is_empty() && !b.is_empty(),
            "the window must wrap for this test"
        );
        let whole = t.observe_view(0, 100, false);
        assert_eq!(whole.len(), 6);
        let mut out = [0u8; 6];
        assert_eq!(whole.copy_to(&mut out), 6);
        assert_eq!(&out, "cdx€".as_bytes());
        // Cut inside the euro sign, whose bytes lie on both sides of the wrap point.
        let cut = t.observe_view(2, 3, false);
        assert_eq!(cut.parts.concat(), b"cdx");
        assert_eq!(cut.next, 5);
        assert_eq!(cut.to_observed(), t.observe(2, 3, false));
        t.write(&[0xE2, 0x82]);
        let held = t.observe_view(0, 100, false);
        assert_eq!(
            held.parts.concat(),
            "x€".as_bytes(),
            "an incomplete end across the wrap is held back"
        );
        assert_eq!(t.observe_view(0, 100, true).len(), 6);
    }
}
