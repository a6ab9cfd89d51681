//! Property tests of the capture semantics: spill contents, tail windows, consumer and observer reads,
//! and UTF-8 boundaries under arbitrary chunking.

mod common;

use std::fs;

use common::TempDir;
use proptest::prelude::*;
use shellring_core::line_start::window_skip;
use shellring_core::utf8::incomplete_tail_len;
use shellring_core::{
    Capture, CaptureOptions, ChunkKind, Ring, RingOptions, RingRead, SpillState, Stream, Tail,
};

fn chunks(max_len: usize, max_count: usize) -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..max_len), 0..max_count)
}

fn concat(read: &RingRead) -> Vec<u8> {
    read.segments
        .iter()
        .flat_map(|s| s.data.iter().copied())
        .collect()
}

/// The window the README defines: the last `min(total, cap)` bytes, window-skipped when bytes were dropped.
fn expected_window(stream: &[u8], cap: usize) -> &[u8] {
    if stream.len() <= cap {
        return stream;
    }
    let w = &stream[stream.len() - cap..];
    &w[window_skip(w, &[])..]
}

/// Text rich in multi-byte characters, so that random cuts land inside sequences often.
fn text(max_chars: usize) -> impl Strategy<Value = String> {
    let alphabet = vec![
        'a',
        'z',
        '\n',
        'é',
        'ß',
        '€',
        '中',
        '😀',
        '🦀',
        '\u{7FF}',
        '\u{800}',
        '\u{10FFFF}',
    ];
    prop::collection::vec(prop::sample::select(alphabet), 0..max_chars)
        .prop_map(|cs| cs.into_iter().collect())
}

/// Cuts `bytes` at the given positions (taken modulo the length), in order.
fn split_at(bytes: &[u8], mut cuts: Vec<usize>) -> Vec<&[u8]> {
    if bytes.is_empty() {
        return vec![bytes];
    }
    for c in &mut cuts {
        *c %= bytes.len() + 1;
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut at = 0;
    for c in cuts {
        out.push(&bytes[at..c]);
        at = c;
    }
    out.push(&bytes[at..]);
    out
}

fn assert_utf8(bytes: &[u8], what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        std::str::from_utf8(bytes).is_ok(),
        "{} is not whole UTF-8: {:02x?}",
        what,
        bytes
    );
    Ok(())
}

proptest! {
    #[test]
    fn the_spill_file_is_the_concatenation_of_all_chunks(cap in 0usize..400, parts in chunks(300, 30)) {
        let dir = TempDir::new("prop-spill");
        let opts = CaptureOptions { stdout_cap: cap, spill_dir: Some(dir.path().to_path_buf()), ..Default::default() };
        let mut c = Capture::new(1, &opts);
        let mut stream = Vec::new();
        for part in &parts {
            c.write(Stream::Stdout, part);
            stream.extend_from_slice(part);
        }
        c.finish();
        let info = c.info(Stream::Stdout);
        if stream.len() > cap {
            prop_assert_eq!(info.spill, SpillState::Complete);
            let on_disk = fs::read(info.spill_path.unwrap()).unwrap();
            prop_assert_eq!(on_disk, stream);
        } else {
            prop_assert_eq!(info.spill, SpillState::None);
            prop_assert!(dir.entries().is_empty());
        }
    }

    #[test]
    fn the_tail_window_is_the_last_bytes_after_the_window_skip(cap in 0usize..300, parts in chunks(400, 30)) {
        let mut t = Tail::new(cap);
        let mut stream = Vec::new();
        for part in &parts {
            t.write(part);
            stream.extend_from_slice(part);
            let want = expected_window(&stream, cap);
            prop_assert_eq!(t.window(), want);
            prop_assert_eq!(t.total(), stream.len() as u64);
            prop_assert_eq!(t.dropped(), stream.len() > cap);
            prop_assert_eq!(t.window_start(), (stream.len() - want.len()) as u64);
        }
    }

    #[test]
    fn consumer_reads_that_keep_up_reconstruct_every_stream(
        ops in prop::collection::vec((0u8..3, prop::collection::vec(any::<u8>(), 0..300), 1usize..120), 0..60),
        tail_max in 1usize..64,
    ) {
        // The live limit holds any one chunk plus its carry, so a reader that reads after every append
        // never falls behind.
        let mut ring = Ring::new(RingOptions { live_limit: 400, settled_limit: 50 });
        let mut sent: [Vec<u8>; 3] = Default::default();
        let mut got: [Vec<u8>; 3] = Default::default();
        let kinds = [ChunkKind::Stdout, ChunkKind::Stderr, ChunkKind::Log];
        let drain = |ring: &mut Ring, max: usize, got: &mut [Vec<u8>; 3]| -> Result<(), TestCaseError> {
            loop {
                let before = ring.state().consumer;
                let read = ring.read(max);
                prop_assert!(!read.meta.lossy);
                prop_assert_eq!(read.meta.from, before);
                for s in &read.segments {
                    got[kinds.iter().position(|k| *k == s.kind).unwrap()].extend_from_slice(&s.data);
                }
                prop_assert_eq!(read.meta.to - read.meta.from, concat(&read).len() as u64);
                if read.meta.to == read.meta.total {
                    return Ok(());
                }
                prop_assert!(read.meta.to > read.meta.from, "a read makes progress");
            }
        };
        for (kind, data, max) in &ops {
            let k = *kind as usize;
            ring.append(kinds[k], data, false);
            sent[k].extend_from_slice(data);
            drain(&mut ring, *max, &mut got)?;
        }
        ring.settle();
        drain(&mut ring, tail_max, &mut got)?;
        prop_assert!(ring.state().terminal_read);
        prop_assert_eq!(&got, &sent);
    }

    #[test]
    fn a_lagging_consumer_is_flagged_lossy_and_observers_never_move_the_cursor(
        limit in 8usize..200,
        ops in prop::collection::vec((0u8..3, prop::collection::vec(any::<u8>(), 0..120), 1usize..150, 0u64..2000), 0..80),
    ) {
        // Log chunks are stored as given, so the ring's offsets index `log` directly.
        let mut ring = Ring::new(RingOptions { live_limit: limit, settled_limit: limit / 2 });
        let mut log = Vec::new();
        for (op, data, max, from) in &ops {
            match op {
                0 => {
                    ring.append(ChunkKind::Log, data, false);
                    log.extend_from_slice(data);
                }
                1 => {
                    let before = ring.state();
                    let read = ring.read(*max);
                    prop_assert_eq!(read.meta.lossy, before.consumer < before.earliest);
                    if before.consumer + (limit as u64) < before.total {
                        prop_assert!(read.meta.lossy, "more than the limit behind must lose bytes");
                    }
                    let (from, to) = (read.meta.from as usize, read.meta.to as usize);
                    prop_assert_eq!(from as u64, before.consumer.max(before.earliest));
                    prop_assert_eq!(concat(&read), &log[from..to]);
                    prop_assert_eq!(ring.state().consumer, read.meta.to);
                }
                _ => {
                    let before = ring.state();
                    let read = ring.observe(*from, *max);
                    prop_assert_eq!(ring.state(), before);
                    prop_assert_eq!(read.meta.lossy, *from < before.earliest);
                    let (from, to) = (read.meta.from as usize, read.meta.to as usize);
                    prop_assert_eq!(concat(&read), &log[from..to]);
                }
            }
        }
    }

    #[test]
    fn utf8_split_anywhere_never_yields_a_read_or_window_inside_a_sequence(
        out in text(120),
        err in text(60),
        out_cuts in prop::collection::vec(any::<usize>(), 0..40),
        err_cuts in prop::collection::vec(any::<usize>(), 0..20),
        cap in 1usize..48,
        live in 4usize..64,
        max in 1usize..16,
    ) {
        let opts = CaptureOptions {
            stdout_cap: cap,
            stderr_cap: cap,
            ring: Some(RingOptions { live_limit: live, settled_limit: live / 2 }),
            ..Default::default()
        };
        let mut c = Capture::new(1, &opts);
        let out_parts = split_at(out.as_bytes(), out_cuts);
        let err_parts = split_at(err.as_bytes(), err_cuts);
        let mut observed = [0u64; 2];
        let steps = out_parts.len().max(err_parts.len());
        for i in 0..steps {
            for (stream, parts) in [(Stream::Stdout, &out_parts), (Stream::Stderr, &err_parts)] {
                let Some(part) = parts.get(i) else { continue };
                c.write(stream, part);
                let w = c.tail(stream);
                assert_utf8(&w[..w.len() - incomplete_tail_len(&w)], "a live window")?;
                let o = c.observe(stream, observed[stream as usize], max);
                assert_utf8(&o.data, "a tail observe")?;
                observed[stream as usize] = o.next;
            }
            let read = c.ring_mut().unwrap().read(max);
            for s in &read.segments {
                assert_utf8(&s.data, "a ring segment")?;
            }
            let whole = c.ring().unwrap().observe(0, 1 << 20);
            for s in &whole.segments {
                assert_utf8(&s.data, "a ring observe")?;
            }
        }
        c.finish();
        for stream in [Stream::Stdout, Stream::Stderr] {
            assert_utf8(&c.tail(stream), "a finished window")?;
            let o = c.observe(stream, observed[stream as usize], usize::MAX);
            assert_utf8(&o.data, "the last tail observe")?;
        }
        let mut last = c.ring_mut().unwrap().read(max);
        while last.meta.to < last.meta.total {
            for s in &last.segments {
                assert_utf8(&s.data, "a ring segment after finish")?;
            }
            last = c.ring_mut().unwrap().read(max);
        }
        prop_assert!(c.ring().unwrap().state().terminal_read);
    }
}

/// Every single and double split of a string of 1- to 4-byte characters, through the tail and the ring.
#[test]
fn utf8_split_at_every_boundary_pair() {
    let s = "a€😀éz中ß🦀".as_bytes();
    for i in 0..=s.len() {
        for j in i..=s.len() {
            let opts = CaptureOptions {
                stdout_cap: 5,
                ring: Some(RingOptions {
                    live_limit: 6,
                    settled_limit: 3,
                }),
                ..Default::default()
            };
            let mut c = Capture::new(1, &opts);
            let mut read_back = Vec::new();
            let mut lossy = false;
            for part in [&s[..i], &s[i..j], &s[j..]] {
                c.write(Stream::Stdout, part);
                let w = c.tail(Stream::Stdout);
                let whole = &w[..w.len() - incomplete_tail_len(&w)];
                assert!(
                    std::str::from_utf8(whole).is_ok(),
                    "split {i},{j}: window {w:02x?}"
                );
                let read = c.ring_mut().unwrap().read(3);
                lossy |= read.meta.lossy;
                for seg in &read.segments {
                    assert!(
                        std::str::from_utf8(&seg.data).is_ok(),
                        "split {i},{j}: segment {:02x?}",
                        seg.data
                    );
                    read_back.extend_from_slice(&seg.data);
                }
            }
            c.finish();
            assert!(std::str::from_utf8(&c.tail(Stream::Stdout)).is_ok());
            loop {
                let read = c.ring_mut().unwrap().read(3);
                lossy |= read.meta.lossy;
                for seg in &read.segments {
                    assert!(std::str::from_utf8(&seg.data).is_ok());
                    read_back.extend_from_slice(&seg.data);
                }
                if read.meta.to == read.meta.total {
                    break;
                }
            }
            let text = std::str::from_utf8(&read_back).expect("reads join into whole characters");
            if !lossy {
                assert_eq!(text.as_bytes(), s, "split {i},{j}");
            }
        }
    }
}
