//! The reactor's fixed set of threads, each with its queue of commands and the waker that tells it of them; a
//! thread runs at a lower priority than the one that started it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use mio::{Poll, Waker};

use super::{run, Command, THREADS, WAKER};
use crate::error::Error;
use crate::shared::lock;

pub(super) struct Thread {
    pub(super) queue: Mutex<Vec<Command>>,
    waker: Waker,
}

pub(super) fn threads() -> Result<&'static [Thread], Error> {
    static THREADS_: OnceLock<Result<Vec<Thread>, String>> = OnceLock::new();
    THREADS_
        .get_or_init(|| (0..THREADS).map(start).collect())
        .as_deref()
        .map_err(|e| Error::Io(e.clone()))
}

fn start(n: usize) -> Result<Thread, String> {
    let poll = Poll::new().map_err(|e| e.to_string())?;
    let waker = Waker::new(poll.registry(), WAKER).map_err(|e| e.to_string())?;
    std::thread::Builder::new()
        .name(format!("shellring-io-{n}"))
        .spawn(move || run(n, poll))
        .map_err(|e| e.to_string())?;
    Ok(Thread {
        queue: Mutex::new(Vec::new()),
        waker,
    })
}

/// Commands sent to the reactor threads since the process started, each with a wake.
static SENT: AtomicU64 = AtomicU64::new(0);

/// How many commands callers have sent the reactor threads, each waking one: what a caller's call costs it beyond
/// its own work (the wake of another thread), counted so tests can tell which calls do.
pub fn commands_sent() -> u64 {
    SENT.load(Ordering::Relaxed)
}

pub(super) fn send(id: u64, command: Command) -> Result<(), Error> {
    let all = threads()?;
    let thread = &all[(id % all.len() as u64) as usize];
    lock(&thread.queue).push(command);
    SENT.fetch_add(1, Ordering::Relaxed);
    thread.waker.wake().map_err(|e| Error::Io(e.to_string()))
}

/// How much nicer the capture threads are than the thread that started them: a JavaScript event loop of this process
/// that wakes while they copy gigabytes is then scheduled before them. They never fork, so no command inherits it.
const IO_NICER: i32 = 5;

/// Lowers the calling thread's priority only (Linux nice is per thread), relative to what it inherited, so a host
/// started with `nice` keeps its order; where that is refused it stays as it was.
pub(super) fn yield_to_event_loop() {
    // SAFETY: gettid, getpriority and setpriority take plain integers and touch no memory of ours.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let inherited = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (inherited + IO_NICER).min(19));
    }
}
