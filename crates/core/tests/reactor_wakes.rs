//! What wakes the reactor: finishing or freeing a capture whose pipes all ended sends it nothing, while one whose
//! pipe is still attached has the reactor close it. Alone in its binary, so no other test's commands are counted.

use std::io::Write;
use std::os::fd::FromRawFd;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use shellring_core::{pipe::pipe, reactor, registry, CaptureOptions, Stream};

fn drain_to_end(id: u64) {
    let (tx, rx) = mpsc::channel();
    registry::drain(id, Duration::MAX, Box::new(move || tx.send(()).unwrap())).unwrap();
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the drain completes at end-of-file");
}

#[test]
fn only_a_capture_with_a_live_pipe_wakes_the_reactor_when_it_ends() {
    // Every pipe ended: finish and free wake nothing.
    let id = registry::create(CaptureOptions::default()).unwrap();
    let (read, write) = pipe().unwrap();
    registry::attach_reader(id, Stream::Stdout, read).unwrap();
    {
        // SAFETY: the write end is ours alone; dropping the file closes it.
        let mut file = unsafe { std::fs::File::from_raw_fd(write) };
        file.write_all(b"done\n").unwrap();
    }
    drain_to_end(id);
    assert!(registry::readers_done(id));
    let before = reactor::commands_sent();
    registry::finish(id).unwrap();
    registry::free(id).unwrap();
    assert_eq!(reactor::commands_sent(), before);

    // A pipe still attached: freeing the capture has the reactor close it, so its writer sees the reader gone.
    let id = registry::create(CaptureOptions::default()).unwrap();
    let (read, write) = pipe().unwrap();
    registry::attach_reader(id, Stream::Stderr, read).unwrap();
    let before = reactor::commands_sent();
    registry::free(id).unwrap();
    assert_eq!(reactor::commands_sent(), before + 1);
    // SAFETY: the write end is ours alone.
    let mut file = unsafe { std::fs::File::from_raw_fd(write) };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match file.write(b"x") {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
            _ if Instant::now() > deadline => {
                panic!("the reactor never closed the freed capture's pipe")
            }
            _ => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}
