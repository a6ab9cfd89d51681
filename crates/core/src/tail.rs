//! The per-stream tail buffer: the last `cap` bytes of a stream in a circular buffer, plus a byte count.

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

    /// The retained bytes in stream order, before the start skip, as at most two slices.
    fn raw_slices(&self) -> (&[u8], &[u8]) {
        if self.buf.len() < self.cap || self.head == 0 {
            (&self.buf[..], &[])
        } else {
            (&self.buf[self.head..], &self.buf[..self.head])
        }
    }

    /// The window as at most two slices in stream order, with the start skip applied when bytes were
    /// dropped.
    pub fn window_slices(&self) -> (&[u8], &[u8]) {
        let (a, b) = self.raw_slices();
        if !self.dropped() {
            return (a, b);
        }
        let skip = if a.len() >= 3 {
            utf8::start_skip(a)
        } else {
            let mut head = [0u8; 3];
            let n = (a.len() + b.len()).min(3);
            for (i, slot) in head.iter_mut().enumerate().take(n) {
                *slot = if i < a.len() { a[i] } else { b[i - a.len()] };
            }
            utf8::start_skip(&head[..n])
        };
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
        let ws = self.window_start();
        let start = from.max(ws).min(self.total);
        let lossy = from < ws;
        let (a, b) = self.window_slices();
        let offset = (start - ws) as usize;
        let mut data = Vec::new();
        if offset < a.len() {
            data.reserve(a.len() - offset + b.len());
            data.extend_from_slice(&a[offset..]);
            data.extend_from_slice(b);
        } else {
            data.extend_from_slice(&b[offset - a.len()..]);
        }
        if !finished {
            let keep = data.len() - utf8::incomplete_tail_len(&data);
            data.truncate(keep);
        }
        if data.len() > max {
            let cut = utf8::boundary_cut(&data, max);
            data.truncate(cut);
        }
        let next = start + data.len() as u64;
        Observed {
            data,
            from: start,
            next,
            lossy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
