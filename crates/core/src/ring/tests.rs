//! Unit tests of the job ring: appends, eviction, holds at character boundaries, reads and settling.

use super::*;
use crate::error::Error;
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
fn a_large_append_pushed_out_by_a_small_one_leaves_most_of_the_limit() {
    // Whole chunks are evicted: one as large as the limit, pushed out by 10 bytes, once left only those 10.
    let mut r = ring(1000, 16);
    r.append(Stdout, &[b'a'; 1000], false);
    r.append(Stdout, &[b'b'; 10], false);
    let read = r.observe(0, 2000);
    assert_eq!(read.meta.total, 1010);
    assert!(
        r.state().retained >= 750,
        "{} bytes retained",
        r.state().retained
    );
    let kept = bytes(&read);
    assert_eq!(kept.len() as u64, read.meta.total - read.meta.earliest);
    assert!(kept.ends_with(&[b'b'; 10]));
}

#[test]
fn an_append_stored_in_pieces_cuts_no_character() {
    let mut r = ring(1000, 16);
    let euros = "€".repeat(400); // 1200 bytes: its last 1000 in pieces of at most 250
    r.append(Stdout, euros.as_bytes(), false);
    r.append(Stdout, b"!", false);
    let read = r.observe(0, 2000);
    for segment in &read.segments {
        assert!(
            std::str::from_utf8(&segment.data).is_ok(),
            "a piece cut a character"
        );
    }
    assert!(
        r.state().retained >= 750,
        "{} bytes retained",
        r.state().retained
    );
    assert_eq!(read.meta.total, 1201);
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

#[test]
fn an_append_after_skipped_bytes_reads_as_the_whole_chunk_would() {
    // "é" is C3 A9: the whole chunk's eviction cuts it, and so does the skip.
    let chunk = [b"ab".as_slice(), "é".as_bytes(), b"0123"].concat();
    let mut whole = ring(5, 5);
    whole.append(Stdout, &[b'x', 0xC3], false);
    whole.append(Stdout, &[&[0xA9][..], &chunk].concat(), false);
    let mut skipping = ring(5, 5);
    skipping.append(Stdout, &[b'x', 0xC3], false);
    // Of the chunk (A9 + chunk, 9 bytes), the first 3 were never read.
    skipping.append_after_skip(Stdout, 3, &chunk[2..]);
    assert_eq!(skipping.state(), whole.state());
    assert_eq!(skipping.observe(0, 100), whole.observe(0, 100));
    assert_eq!(bytes(&skipping.observe(0, 100)), b"0123");
}
