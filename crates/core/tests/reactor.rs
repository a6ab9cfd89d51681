//! The reactor on real pipes: every byte reaches the capture, a drain ends at end-of-file or at its deadline
//! with every byte the pipe held read first, and completion arrives as a callback.

use std::io::Write;
use std::os::fd::FromRawFd;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use shellring_core::{pipe::pipe, registry, CaptureOptions, Stream};

fn drained(id: u64, within: Duration) -> Duration {
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    registry::drain(id, within, Box::new(move || tx.send(()).unwrap())).unwrap();
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the drain completes");
    started.elapsed()
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn every_byte_of_many_pipes_arrives_and_the_drain_ends_at_end_of_file() {
    let mut ids = Vec::new();
    let mut writers = Vec::new();
    for n in 0..64u8 {
        let id = registry::create(CaptureOptions {
            stdout_cap: 8 << 20,
            ..Default::default()
        })
        .unwrap();
        let (read, write) = pipe().unwrap();
        registry::attach_reader(id, Stream::Stdout, read).unwrap();
        assert!(!registry::readers_done(id));
        let data = pattern(3 << 20, n);
        writers.push(std::thread::spawn(move || {
            // SAFETY: the write end is ours alone.
            let mut file = unsafe { std::fs::File::from_raw_fd(write) };
            file.write_all(&data).unwrap();
        }));
        ids.push((id, n));
    }
    for w in writers {
        w.join().unwrap();
    }
    for (id, n) in ids {
        drained(id, Duration::from_secs(30));
        assert!(registry::readers_done(id));
        assert_eq!(
            registry::tail(id, Stream::Stdout).unwrap(),
            pattern(3 << 20, n)
        );
        registry::free(id).unwrap();
    }
}

#[test]
fn an_expired_drain_reads_what_the_pipe_holds_before_it_finishes() {
    let id = registry::create(CaptureOptions {
        stdout_cap: 4 << 20,
        ..Default::default()
    })
    .unwrap();
    let (read, write) = pipe().unwrap();
    // The write end stays open (a descendant that keeps the pipe): only the deadline can end the drain.
    // SAFETY: the write end is ours alone.
    let mut file = unsafe { std::fs::File::from_raw_fd(write) };
    let data = pattern(900 * 1024, 7);
    file.write_all(&data).unwrap();
    registry::attach_reader(id, Stream::Stdout, read).unwrap();
    // Ended by its deadline, not by end-of-file, which never comes: any bound far below forever tells them apart.
    let took = drained(id, Duration::ZERO);
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert_eq!(registry::tail(id, Stream::Stdout).unwrap(), data);
    assert!(registry::readers_done(id));
    // Bytes written after the capture finished belong to no result.
    let _ = file.write_all(b"late");
    // Two seconds for a reader that was left running to show it.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        registry::info(id, Stream::Stdout).unwrap().total,
        data.len() as u64
    );
    registry::free(id).unwrap();
}

#[test]
fn a_drain_waits_for_end_of_file_until_its_deadline() {
    let id = registry::create(CaptureOptions::default()).unwrap();
    let (read, write) = pipe().unwrap();
    registry::attach_reader(id, Stream::Stderr, read).unwrap();
    let closer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: the write end is ours alone.
        let mut file = unsafe { std::fs::File::from_raw_fd(write) };
        file.write_all(b"last words\n").unwrap();
    });
    let took = drained(id, Duration::from_secs(20));
    closer.join().unwrap();
    assert!(
        took >= Duration::from_millis(150) && took < Duration::from_secs(10),
        "{took:?}"
    );
    assert_eq!(registry::tail(id, Stream::Stderr).unwrap(), b"last words\n");
    registry::free(id).unwrap();
}

#[test]
fn a_drain_without_pipes_finishes_at_once() {
    let id = registry::create(CaptureOptions::default()).unwrap();
    registry::write(id, Stream::Stdout, b"x").unwrap();
    drained(id, Duration::from_secs(20));
    assert!(registry::readers_done(id));
    registry::free(id).unwrap();
}
