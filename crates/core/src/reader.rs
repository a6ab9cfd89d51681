//! Native pipe readers: one thread per stream drains a pipe straight into a capture, so command output never
//! lands on a JavaScript heap and no JavaScript thread has to be scheduled for every 64 KiB.

use std::collections::HashMap;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::capture::{Capture, Stream};
use crate::error::Error;

/// Bytes taken from the pipe per read. The pipe itself is grown to [`PIPE_SIZE`] so a fast writer rarely waits.
const READ_SIZE: usize = 256 * 1024;
const PIPE_SIZE: libc::c_int = 1024 * 1024;
/// The nice value of reader threads (Linux applies it per thread).
const READER_NICE: libc::c_int = 10;
/// How often a reader with nothing to read looks at its stop flag.
const IDLE_POLL_MS: libc::c_int = 50;

struct ReaderSet {
    attached: usize,
    done: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

fn readers() -> &'static Mutex<HashMap<u64, ReaderSet>> {
    static READERS: OnceLock<Mutex<HashMap<u64, ReaderSet>>> = OnceLock::new();
    READERS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Creates a pipe for a child's stdout or stderr: both ends close-on-exec (a child started by another thread
/// must not inherit them; the spawner's dup2 onto fd 1/2 clears the flag on the copy), the read end non-blocking.
///
/// # Errors
/// The OS error of `pipe2`.
pub fn pipe() -> Result<(RawFd, RawFd), Error> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Error::Io(std::io::Error::last_os_error().to_string()));
    }
    // SAFETY: fcntl on fds we own; growing the pipe is best effort (capped by /proc/sys/fs/pipe-max-size).
    unsafe {
        libc::fcntl(fds[0], libc::F_SETPIPE_SZ, PIPE_SIZE);
        libc::fcntl(fds[0], libc::F_SETFL, libc::fcntl(fds[0], libc::F_GETFL) | libc::O_NONBLOCK);
    }
    Ok((fds[0], fds[1]))
}

/// Starts a thread that owns `fd` (a pipe's read end, non-blocking) and writes everything it reads into the
/// capture's `stream` until end-of-file, [`stop`], or the capture finishing. The thread closes `fd`.
///
/// # Errors
/// [`Error::UnknownCapture`] for an id that does not exist (`fd` is closed then too), or the OS error of
/// starting the thread.
pub fn attach(id: u64, capture: Arc<Mutex<Capture>>, stream: Stream, fd: RawFd) -> Result<(), Error> {
    let (done, stop) = {
        let mut map = readers().lock().unwrap_or_else(PoisonError::into_inner);
        let set = map.entry(id).or_insert_with(|| ReaderSet {
            attached: 0,
            done: Arc::new(AtomicUsize::new(0)),
            stop: Arc::new(AtomicBool::new(false)),
        });
        set.attached += 1;
        (set.done.clone(), set.stop.clone())
    };
    let spawned = std::thread::Builder::new()
        .name(format!("shellring-reader-{id}"))
        .stack_size(64 * 1024)
        .spawn({
            let done = done.clone();
            move || {
                // Readers yield the CPU to the host's own threads (its event loop above all) when cores are short;
                // a full pipe then only slows the command that fills it.
                // SAFETY: setpriority on this thread's id has no memory effects.
                unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, READER_NICE) };
                drain(&capture, stream, fd, &stop);
                // SAFETY: the thread owns fd and nothing else closes it.
                unsafe { libc::close(fd) };
                done.fetch_add(1, Ordering::Release);
            }
        });
    spawned.map(|_| ()).map_err(|e| {
        // SAFETY: the thread did not start, so fd is still ours to close.
        unsafe { libc::close(fd) };
        done.fetch_add(1, Ordering::Release);
        Error::Io(e.to_string())
    })
}

fn drain(capture: &Mutex<Capture>, stream: Stream, fd: RawFd, stop: &AtomicBool) {
    let mut buf = vec![0u8; READ_SIZE];
    loop {
        // SAFETY: buf is a live, writable buffer of READ_SIZE bytes.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            let mut capture = capture.lock().unwrap_or_else(PoisonError::into_inner);
            // Bytes that arrive after the capture finished belong to no result; the pipe is abandoned.
            if capture.finished() {
                return;
            }
            capture.write(stream, &buf[..n as usize]);
            continue;
        }
        if n == 0 {
            return;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) => {
                if stop.load(Ordering::Acquire) {
                    return;
                }
                let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
                // SAFETY: one live pollfd record.
                unsafe { libc::poll(&mut pfd, 1, IDLE_POLL_MS) };
            }
            _ => return,
        }
    }
}

/// True when every reader attached to the capture has ended (all its pipes reached end-of-file or were
/// abandoned). A capture with no reader is done.
pub fn done(id: u64) -> bool {
    let map = readers().lock().unwrap_or_else(PoisonError::into_inner);
    map.get(&id).is_none_or(|set| set.done.load(Ordering::Acquire) >= set.attached)
}

/// Asks the capture's readers to stop once their pipe has nothing more to give right now, and forgets them.
pub fn stop(id: u64) {
    if let Some(set) = readers().lock().unwrap_or_else(PoisonError::into_inner).remove(&id) {
        set.stop.store(true, Ordering::Release);
    }
}
