//! The process-global registry: ids, errors, and one thread writing while another reads.

use std::sync::Arc;
use std::sync::Barrier;
use std::thread;

use shellring_core::{registry, CaptureOptions, ChunkKind, Error, RingOptions, Stream};

fn ring_options() -> CaptureOptions {
    CaptureOptions {
        ring: Some(RingOptions::default()),
        ..Default::default()
    }
}

#[test]
fn ids_are_positive_and_never_reused() {
    let a = registry::create(CaptureOptions::default()).unwrap();
    registry::free(a).unwrap();
    let b = registry::create(CaptureOptions::default()).unwrap();
    assert!(a >= 1);
    assert!(b > a);
    registry::free(b).unwrap();
}

#[test]
fn unknown_and_freed_ids_are_errors() {
    let err = registry::info(u64::MAX - 1, Stream::Stdout).unwrap_err();
    assert_eq!(err.to_string(), format!("unknown capture {}", u64::MAX - 1));
    let id = registry::create(CaptureOptions::default()).unwrap();
    registry::write(id, Stream::Stdout, b"x").unwrap();
    registry::free(id).unwrap();
    assert_eq!(
        registry::write(id, Stream::Stdout, b"x"),
        Err(Error::UnknownCapture(id))
    );
    assert_eq!(registry::free(id), Err(Error::UnknownCapture(id)));
    assert_eq!(registry::ring_state(id), Err(Error::UnknownCapture(id)));
}

#[test]
fn ring_calls_need_a_ring() {
    let id = registry::create(CaptureOptions::default()).unwrap();
    assert_eq!(registry::ring_read(id, 10), Err(Error::NoRing(id)));
    assert_eq!(
        registry::ring_append(id, ChunkKind::Log, b"x", false),
        Err(Error::NoRing(id))
    );
    registry::free(id).unwrap();
}

#[test]
fn invalid_options_are_refused() {
    let opts = CaptureOptions {
        spill_name: Some("../escape".into()),
        ..Default::default()
    };
    assert!(matches!(
        registry::create(opts),
        Err(Error::InvalidOptions(_))
    ));
}

#[test]
fn operations_by_id() {
    let id = registry::create(ring_options()).unwrap();
    registry::write(id, Stream::Stdout, b"out").unwrap();
    registry::write(id, Stream::Stderr, b"err").unwrap();
    registry::ring_append(id, ChunkKind::Log, b"[log]", false).unwrap();
    assert_eq!(registry::tail(id, Stream::Stdout).unwrap(), b"out");
    assert_eq!(registry::info(id, Stream::Stderr).unwrap().total, 3);
    assert_eq!(
        registry::observe(id, Stream::Stdout, 1, 10).unwrap().data,
        b"ut"
    );
    assert_eq!(
        registry::ring_observe(id, 0, 100).unwrap().segments.len(),
        3
    );
    let mut buf = [0u8; 64];
    let got = registry::ring_read_into(id, &mut buf).unwrap();
    assert_eq!(&buf[..got.bytes], b"outerr[log]");
    registry::finish(id).unwrap();
    registry::ring_settle(id).unwrap();
    assert!(registry::ring_state(id).unwrap().settled);
    registry::free(id).unwrap();
}

#[test]
fn writers_and_readers_on_other_threads_see_every_byte() {
    const WRITERS: usize = 4;
    const CHUNKS: usize = 2000;
    let ids: Vec<u64> = (0..WRITERS)
        .map(|_| registry::create(ring_options()).unwrap())
        .collect();
    let start = Arc::new(Barrier::new(WRITERS * 2));
    let mut handles = Vec::new();
    for (w, &id) in ids.iter().enumerate() {
        let go = Arc::clone(&start);
        handles.push(thread::spawn(move || {
            go.wait();
            for i in 0..CHUNKS {
                let line = format!("w{w} line {i} é€😀\n");
                registry::write(id, Stream::Stdout, line.as_bytes()).unwrap();
            }
            registry::finish(id).unwrap();
        }));
        let go = Arc::clone(&start);
        handles.push(thread::spawn(move || {
            go.wait();
            let mut got = Vec::new();
            loop {
                let read = registry::ring_read(id, 777).unwrap();
                assert!(
                    !read.meta.lossy,
                    "a reader that keeps reading loses nothing"
                );
                for s in &read.segments {
                    assert!(std::str::from_utf8(&s.data).is_ok());
                    got.extend_from_slice(&s.data);
                }
                if read.meta.settled && read.meta.to == read.meta.total {
                    break;
                }
                if read.segments.is_empty() {
                    thread::yield_now();
                }
            }
            let want: String = (0..CHUNKS)
                .map(|i| format!("w{w} line {i} é€😀\n"))
                .collect();
            assert_eq!(got, want.as_bytes());
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
    for id in ids {
        assert!(registry::ring_state(id).unwrap().terminal_read);
        registry::free(id).unwrap();
    }
}
