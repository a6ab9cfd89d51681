//! A command pipe's frame on real pipes: exact bytes through short splices and a full stream, bytes that come after
//! the header stay for the next frame, a pipe whose writer ends mid-frame, two pipes interleaved on one stream, and a
//! stream splice refuses (append-only), which takes the copying path.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::rc::Rc;

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use shellring_runner::stdio::splice::{PipeFrame, Step};
use shellring_runner::wire::frames::{self as frame, Frame};

/// A pipe as the server makes a command's: the read end non-blocking, the capacity `size`.
fn pipe(size: usize) -> (Rc<OwnedFd>, File) {
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).unwrap();
    fcntl(&write, FcntlArg::F_SETFL(OFlag::empty())).unwrap();
    fcntl(&read, FcntlArg::F_SETPIPE_SZ(size as i32)).unwrap();
    (Rc::new(read), File::from(write))
}

/// The stream: a small non-blocking pipe, so splices come up short and the stream fills.
fn stream() -> (File, OwnedFd) {
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).unwrap();
    fcntl(&write, FcntlArg::F_SETPIPE_SZ(4096)).unwrap();
    (File::from(read), write)
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// Reads whatever the stream holds now.
fn drain(from: &mut File, into: &mut Vec<u8>) {
    let mut buf = [0u8; 8192];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => into.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(e) => panic!("{e}"),
        }
    }
}

/// Advances until the frame is sent, reading the stream whenever it is full; returns how often it was.
fn send(frame: &mut PipeFrame, out: &OwnedFd, reader: &mut File, got: &mut Vec<u8>) -> usize {
    let mut blocked = 0;
    loop {
        match frame.advance(out.as_fd()) {
            Step::Sent => return blocked,
            Step::Blocked => {
                blocked += 1;
                drain(reader, got);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

fn frames(mut bytes: Vec<u8>) -> Vec<Frame> {
    let frames = frame::split(&mut bytes).unwrap();
    assert!(bytes.is_empty(), "a partial frame is left");
    frames
}

#[test]
fn a_frame_carries_exactly_what_the_pipe_held_through_a_full_stream() {
    for len in [1, 9, 4095, 4096, 4097, 65_536, 200_000] {
        let (pipe, mut writer) = pipe(256 << 10);
        let (mut reader, out) = stream();
        let data = pattern(len, 7);
        writer.write_all(&data).unwrap();
        let mut got = Vec::new();
        let mut frame = PipeFrame::new(frame::STDOUT, 3, Rc::clone(&pipe));
        let blocked = send(&mut frame, &out, &mut reader, &mut got);
        drain(&mut reader, &mut got);
        if len > 8192 {
            assert!(blocked > 0, "{len}: the stream never filled");
        }
        assert_eq!(
            frames(got),
            [Frame {
                kind: frame::STDOUT,
                id: 3,
                payload: data
            }],
            "{len}"
        );
        // The pipe is empty now, its writer still open: a wake-up with nothing to send.
        assert_eq!(
            PipeFrame::new(frame::STDOUT, 3, pipe).advance(out.as_fd()),
            Step::Empty
        );
    }
}

#[test]
fn bytes_written_after_the_frame_began_go_in_the_next_one_and_a_writer_ending_mid_frame_loses_nothing(
) {
    let (pipe, mut writer) = pipe(256 << 10);
    let (mut reader, out) = stream();
    let (first, second) = (pattern(50_000, 1), pattern(30_000, 2));
    writer.write_all(&first).unwrap();
    let mut got = Vec::new();
    let mut frame = PipeFrame::new(frame::STDERR, 9, Rc::clone(&pipe));
    assert_eq!(frame.advance(out.as_fd()), Step::Blocked);
    assert!(frame.begun());
    // The command writes more and ends while the frame is under way.
    writer.write_all(&second).unwrap();
    drop(writer);
    send(&mut frame, &out, &mut reader, &mut got);
    let mut next = PipeFrame::new(frame::STDERR, 9, Rc::clone(&pipe));
    send(&mut next, &out, &mut reader, &mut got);
    drain(&mut reader, &mut got);
    let payloads: Vec<Vec<u8>> = frames(got).into_iter().map(|f| f.payload).collect();
    assert_eq!(payloads, [first, second]);
    assert_eq!(
        PipeFrame::new(frame::STDERR, 9, pipe).advance(out.as_fd()),
        Step::Ended
    );
}

#[test]
fn stdout_and_stderr_interleave_on_one_stream_each_byte_exact() {
    let (out_pipe, mut out_writer) = pipe(64 << 10);
    let (err_pipe, mut err_writer) = pipe(64 << 10);
    let (mut reader, out) = stream();
    let (mut want_out, mut want_err, mut got) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..40u8 {
        let (a, b) = (
            pattern(997 * (round as usize + 1), round),
            pattern(13 * (round as usize + 1), !round),
        );
        out_writer.write_all(&a).unwrap();
        err_writer.write_all(&b).unwrap();
        want_out.extend_from_slice(&a);
        want_err.extend_from_slice(&b);
        for (kind, pipe) in [(frame::STDOUT, &out_pipe), (frame::STDERR, &err_pipe)] {
            let mut frame = PipeFrame::new(kind, 1, Rc::clone(pipe));
            send(&mut frame, &out, &mut reader, &mut got);
        }
    }
    drain(&mut reader, &mut got);
    let (mut seen_out, mut seen_err) = (Vec::new(), Vec::new());
    for Frame { kind, id, payload } in frames(got) {
        assert_eq!(id, 1);
        match kind {
            frame::STDOUT => seen_out.extend(payload),
            frame::STDERR => seen_err.extend(payload),
            other => panic!("kind {other}"),
        }
    }
    assert_eq!(seen_out, want_out);
    assert_eq!(seen_err, want_err);
}

#[test]
fn a_stream_splice_refuses_takes_the_bytes_by_copy() {
    let (pipe, mut writer) = pipe(256 << 10);
    let path = std::env::temp_dir().join(format!("shellring-stdio-splice-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    // Append-only: splice(2) refuses to write to it.
    let out = File::options()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap();
    let data = pattern(150_000, 5);
    writer.write_all(&data).unwrap();
    let mut frame = PipeFrame::new(frame::STDOUT, 2, pipe);
    assert_eq!(frame.advance(out.as_fd()), Step::Sent);
    let written = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        frames(written),
        [Frame {
            kind: frame::STDOUT,
            id: 2,
            payload: data
        }]
    );
}
