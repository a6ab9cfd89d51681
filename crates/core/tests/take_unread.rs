//! The reactor's way of taking a pipe without reading it: with an active spill file every byte goes pipe → file
//! by splice(2) and memory catches up from the file when next locked; the tail, the ring and the file end as if
//! every byte had been read, across short splices, an empty pipe, a writer gone mid-stream and a full disk.
#![cfg(target_os = "linux")]

mod common;

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};

use shellring_core::pipe_moves::read_full;
use shellring_core::{CaptureOptions, ChunkKind, RingOptions, SharedCapture, SpillState, Stream};

use common::TempDir;

struct Pipe {
    r: OwnedFd,
    w: Option<File>,
}

impl Pipe {
    fn new() -> Self {
        let (r, w) = shellring_core::pipe::pipe().unwrap();
        // SAFETY: both fds were just created and are owned here alone.
        let (r, w) = unsafe { (OwnedFd::from_raw_fd(r), File::from_raw_fd(w)) };
        Pipe { r, w: Some(w) }
    }

    fn put(&mut self, bytes: &[u8]) {
        self.w.as_mut().unwrap().write_all(bytes).unwrap();
    }

    fn waiting(&self) -> usize {
        shellring_core::pipe_moves::waiting(self.r.as_fd())
    }
}

fn null() -> File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap()
}

fn options(dir: &std::path::Path) -> CaptureOptions {
    CaptureOptions {
        stdout_cap: 16,
        stderr_cap: 16,
        spill_dir: Some(dir.to_path_buf()),
        ring: Some(RingOptions {
            live_limit: 24,
            settled_limit: 24,
        }),
        ..Default::default()
    }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| b'a' + ((i as u8).wrapping_mul(7).wrapping_add(seed) % 26))
        .collect()
}

/// Takes what the pipe holds the reactor's way, falling back to a read as the reactor does.
fn take(capture: &SharedCapture, stream: Stream, pipe: &Pipe) -> bool {
    let mut buf = [0u8; 64];
    let waiting = pipe.waiting();
    match capture.take_unread(stream, pipe.r.as_fd(), waiting, null().as_fd(), &mut buf) {
        Some(taken) => taken,
        None => {
            let n = read_full(pipe.r.as_fd(), &mut buf);
            capture.write_from_pipe(stream, &buf[..n])
        }
    }
}

/// The same bytes written in the same order by plain writes, for comparison.
fn written(chunks: &[(Stream, &[u8])], dir: &std::path::Path) -> SharedCapture {
    let c = SharedCapture::new(
        999,
        &CaptureOptions {
            spill_dir: None,
            ..options(dir)
        },
    );
    for (stream, data) in chunks {
        c.write(*stream, data);
    }
    c.finish();
    c
}

fn tail(c: &SharedCapture, stream: Stream) -> Vec<u8> {
    c.read_memory(|m| m.tail(stream).window())
}

fn ring(c: &SharedCapture) -> shellring_core::RingRead {
    c.read_memory(|m| m.ring().unwrap().observe(0, 1000))
}

#[test]
fn an_active_file_takes_every_byte_and_memory_ends_as_a_full_read_would() {
    let dir = TempDir::new("take");
    let capture = SharedCapture::new(1, &options(dir.path()));
    let stream = pattern(1000, 0);
    let mut pipe = Pipe::new();
    // The first overflow starts the file by the usual path (it back-fills from the tail).
    pipe.put(&stream[..20]);
    assert!(take(&capture, Stream::Stdout, &pipe));
    assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Active);
    // From here every byte is spliced, in chunks of every size, some shorter than memory keeps.
    let mut at = 20;
    for len in [1, 3, 30, 200, 7, 500, 239] {
        pipe.put(&stream[at..at + len]);
        assert_eq!(
            capture.take_unread(
                Stream::Stdout,
                pipe.r.as_fd(),
                len,
                null().as_fd(),
                &mut [0; 64]
            ),
            Some(true)
        );
        at += len;
        // A poll of progress sees memory caught up: the ring's offsets are those a read then finds.
        assert_eq!(capture.info(Stream::Stdout).total, at as u64);
        let polled = capture.ring_state().unwrap();
        assert_eq!(polled, capture.read_memory(|m| m.ring().unwrap().state()));
    }
    assert_eq!(at, 1000);
    capture.finish();
    let reference = written(&[(Stream::Stdout, &stream[..])], dir.path());
    assert_eq!(
        tail(&capture, Stream::Stdout),
        tail(&reference, Stream::Stdout)
    );
    assert_eq!(ring(&capture), ring(&reference));
    let info = capture.info(Stream::Stdout);
    assert_eq!((info.total, info.spill), (1000, SpillState::Complete));
    let file = std::fs::read(info.spill_path.unwrap()).unwrap();
    assert_eq!(file, stream);
    // The tail is the file's last bytes (after its start skip).
    assert!(file.ends_with(&tail(&capture, Stream::Stdout)));
}

#[test]
fn an_empty_pipe_is_left_to_the_usual_read() {
    let dir = TempDir::new("take-empty");
    let capture = SharedCapture::new(2, &options(dir.path()));
    let mut pipe = Pipe::new();
    pipe.put(&pattern(40, 1));
    assert!(take(&capture, Stream::Stdout, &pipe));
    assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Active);
    let mut buf = [0u8; 64];
    // Nothing waiting (EAGAIN for a read): nothing taken, and the reactor's read sees the empty pipe itself.
    assert_eq!(
        capture.take_unread(Stream::Stdout, pipe.r.as_fd(), 0, null().as_fd(), &mut buf),
        None
    );
    // A pipe that said it held more than it does: what it gave is taken, the file stays.
    pipe.put(b"xyz");
    assert_eq!(
        capture.take_unread(Stream::Stdout, pipe.r.as_fd(), 10, null().as_fd(), &mut buf),
        Some(true)
    );
    assert_eq!(capture.info(Stream::Stdout).total, 43);
    assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Active);
    assert!(tail(&capture, Stream::Stdout).ends_with(b"xyz"));
}

#[test]
fn a_writer_gone_mid_stream_leaves_every_byte_it_wrote() {
    let dir = TempDir::new("take-gone");
    let capture = SharedCapture::new(3, &options(dir.path()));
    let stream = pattern(300, 2);
    let mut pipe = Pipe::new();
    pipe.put(&stream[..20]);
    assert!(take(&capture, Stream::Stdout, &pipe));
    pipe.put(&stream[20..]);
    // The writer closes while its bytes wait in the pipe: they are all still spliced.
    pipe.w = None;
    assert!(take(&capture, Stream::Stdout, &pipe));
    // Then end-of-file, seen by the usual read.
    let mut buf = [0u8; 8];
    assert_eq!(read_full(pipe.r.as_fd(), &mut buf), 0);
    capture.finish();
    let info = capture.info(Stream::Stdout);
    assert_eq!(std::fs::read(info.spill_path.unwrap()).unwrap(), stream);
    assert_eq!(
        tail(&capture, Stream::Stdout),
        tail(
            &written(&[(Stream::Stdout, &stream[..])], dir.path()),
            Stream::Stdout
        )
    );
}

#[test]
fn the_other_stream_and_the_ring_see_spliced_bytes_in_arrival_order() {
    let dir = TempDir::new("take-order");
    let capture = SharedCapture::new(4, &options(dir.path()));
    let out = pattern(40, 3);
    let mut pipe = Pipe::new();
    pipe.put(&out[..20]);
    assert!(take(&capture, Stream::Stdout, &pipe));
    pipe.put(&out[20..30]);
    assert!(take(&capture, Stream::Stdout, &pipe));
    // stderr written while stdout is behind: stdout's spliced bytes enter the ring first.
    capture.write(Stream::Stderr, b"ERR");
    pipe.put(&out[30..]);
    assert!(take(&capture, Stream::Stdout, &pipe));
    // A live observer reads across the point where memory caught up.
    let live = capture.read_memory(|m| m.ring().unwrap().observe(0, 1000));
    let kinds: Vec<ChunkKind> = live.segments.iter().map(|s| s.kind).collect();
    assert_eq!(kinds.last(), Some(&ChunkKind::Stdout));
    assert!(kinds.contains(&ChunkKind::Stderr));
    capture.finish();
    let reference = written(
        &[
            (Stream::Stdout, &out[..20]),
            (Stream::Stdout, &out[20..30]),
            (Stream::Stderr, b"ERR"),
            (Stream::Stdout, &out[30..]),
        ],
        dir.path(),
    );
    assert_eq!(ring(&capture), ring(&reference));
    assert_eq!(tail(&capture, Stream::Stderr), b"ERR");
    assert_eq!(
        tail(&capture, Stream::Stdout),
        tail(&reference, Stream::Stdout)
    );
}

#[test]
fn bytes_spliced_after_the_finish_belong_to_no_result() {
    let dir = TempDir::new("take-late");
    let capture = SharedCapture::new(5, &options(dir.path()));
    let mut pipe = Pipe::new();
    pipe.put(&pattern(20, 4));
    assert!(take(&capture, Stream::Stdout, &pipe));
    pipe.put(b"late bytes");
    capture.finish();
    assert!(!take(&capture, Stream::Stdout, &pipe));
    let info = capture.info(Stream::Stdout);
    assert_eq!(info.total, 20);
    assert_eq!(
        std::fs::read(info.spill_path.unwrap()).unwrap(),
        pattern(20, 4)
    );
}

#[test]
fn a_spill_file_is_allocated_ahead_of_its_writes_and_gives_back_what_it_did_not_use() {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new("take-reserve");
    let capture = SharedCapture::new(7, &options(dir.path()));
    let stream = pattern(3 << 20, 6);
    let mut pipe = Pipe::new();
    pipe.put(&stream[..20]);
    assert!(take(&capture, Stream::Stdout, &pipe));
    let path = capture.info(Stream::Stdout).spill_path.unwrap();
    let on_disk = || {
        let meta = std::fs::metadata(&path).unwrap();
        (meta.len(), meta.blocks() * 512)
    };
    let mut at = 20;
    let mut most_ahead = 0;
    while at < stream.len() {
        let len = (stream.len() - at).min(256 << 10);
        pipe.put(&stream[at..at + len]);
        while pipe.waiting() > 0 {
            assert!(take(&capture, Stream::Stdout, &pipe));
        }
        at += len;
        let (len, allocated) = on_disk();
        assert_eq!(len, at as u64, "the file's size is what it holds");
        most_ahead = most_ahead.max(allocated.saturating_sub(len));
    }
    assert!(
        most_ahead >= 1 << 20,
        "blocks allocated ahead of the writes: {most_ahead} bytes at most"
    );
    capture.finish();
    let (len, allocated) = on_disk();
    assert_eq!(len, stream.len() as u64);
    assert!(
        allocated < len + (64 << 10),
        "a finished file holds no blocks past its end: {allocated} bytes for {len}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), stream);
}

#[test]
fn a_disk_filling_mid_splice_drops_the_file_and_keeps_the_newest_bytes() {
    // Pieces smaller than one splice into the file, and larger: the relay then holds bytes past the failed write,
    // which memory must take.
    for piece in [50_000, 700_000] {
        disk_fills_mid_splice(piece);
    }
}

fn disk_fills_mid_splice(piece: usize) {
    let dir = TempDir::new("take-enospc");
    let Some(mount) = common::Tmpfs::mount(dir.path(), "64k") else {
        println!("skipped a_disk_filling_mid_splice_drops_the_file_and_keeps_the_newest_bytes: mounting needs root");
        return;
    };
    let capture = SharedCapture::new(6, &options(mount.path()));
    let stream = pattern(piece * 4, 5);
    let mut pipe = Pipe::new();
    pipe.put(&stream[..20]);
    assert!(take(&capture, Stream::Stdout, &pipe));
    assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Active);
    let mut at = 20;
    while at < stream.len() {
        let len = (stream.len() - at).min(piece);
        pipe.put(&stream[at..at + len]);
        while pipe.waiting() > 0 {
            assert!(take(&capture, Stream::Stdout, &pipe));
        }
        at += len;
    }
    capture.finish();
    let info = capture.info(Stream::Stdout);
    assert_eq!(
        (info.total, info.spill, info.spill_path),
        (stream.len() as u64, SpillState::Unavailable, None)
    );
    assert_eq!(
        tail(&capture, Stream::Stdout),
        tail(
            &written(&[(Stream::Stdout, &stream[..])], dir.path()),
            Stream::Stdout
        ),
        "the tail keeps the newest bytes"
    );
    assert_eq!(
        std::fs::read_dir(mount.path()).unwrap().count(),
        0,
        "the partial file was removed"
    );
}

#[test]
fn without_a_file_only_the_newest_bytes_are_held_and_memory_ends_as_a_full_read_would() {
    let dir = TempDir::new("take-held");
    let no_file = CaptureOptions {
        spill_dir: None,
        ..options(dir.path())
    };
    let capture = SharedCapture::new(7, &no_file);
    let out = pattern(3000, 6);
    let mut pipe = Pipe::new();
    let mut reference = Vec::new();
    let mut at = 0;
    // Takes of every size around what memory keeps (24 bytes), stderr written between some of them.
    for (n, len) in [20, 1, 3, 30, 200, 7, 24, 25, 500, 2190]
        .into_iter()
        .enumerate()
    {
        pipe.put(&out[at..at + len]);
        assert!(take(&capture, Stream::Stdout, &pipe));
        assert_eq!(pipe.waiting(), 0);
        reference.push((Stream::Stdout, &out[at..at + len]));
        at += len;
        assert_eq!(capture.info(Stream::Stdout).total, at as u64);
        if n % 3 == 2 {
            capture.write(Stream::Stderr, b"ERR");
            reference.push((Stream::Stderr, b"ERR"));
        }
        // A poll of progress sees memory caught up.
        let polled = capture.ring_state().unwrap();
        assert_eq!(polled, capture.read_memory(|m| m.ring().unwrap().state()));
    }
    assert_eq!(at, out.len());
    pipe.put(b"late");
    capture.finish();
    assert!(
        !take(&capture, Stream::Stdout, &pipe),
        "bytes after the finish belong to no result"
    );
    let reference = written(&reference, dir.path());
    assert_eq!(
        tail(&capture, Stream::Stdout),
        tail(&reference, Stream::Stdout)
    );
    assert_eq!(tail(&capture, Stream::Stderr), b"ERRERRERR");
    assert_eq!(ring(&capture), ring(&reference));
    let info = capture.info(Stream::Stdout);
    assert_eq!((info.total, info.spill), (3000, SpillState::Unavailable));
}
