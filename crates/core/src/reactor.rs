//! One readiness reactor for every output pipe: a fixed set of threads, each waiting in epoll (through mio) on
//! the pipes of its share of captures. An idle pipe costs one epoll registration, no thread and no CPU.
//!
//! A capture's pipes all live on one thread, which also ends the capture: at end-of-file of every pipe, or
//! when the drain the supervisor asked for expires, after reading every byte the pipes hold at that moment.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsRawFd, OwnedFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};

use crate::capture::Stream;
use crate::error::Error;
use crate::shared::{lock, SharedCapture};

/// Reactor threads; captures are spread over them by id.
const THREADS: usize = 2;
/// Bytes taken from a pipe per read (pipes are grown to 1 MiB, see `reader::pipe`).
const READ_SIZE: usize = 256 * 1024;
/// Reads per pipe per turn, so one fast writer cannot starve the other pipes of its thread.
const BUDGET: usize = 4;
const WAKER: Token = Token(usize::MAX);

/// Called once a capture has ended (finished, every pipe closed).
pub type Done = Box<dyn FnOnce() + Send>;

enum Command {
    Attach {
        id: u64,
        capture: Arc<SharedCapture>,
        stream: Stream,
        fd: OwnedFd,
    },
    Drain {
        id: u64,
        capture: Arc<SharedCapture>,
        within: Duration,
        done: Done,
    },
    Stop {
        id: u64,
    },
}

struct Thread {
    queue: Mutex<Vec<Command>>,
    waker: Waker,
}

fn threads() -> Result<&'static [Thread], Error> {
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

fn send(id: u64, command: Command) -> Result<(), Error> {
    let all = threads()?;
    let thread = &all[(id % all.len() as u64) as usize];
    lock(&thread.queue).push(command);
    SENT.fetch_add(1, Ordering::Relaxed);
    thread.waker.wake().map_err(|e| Error::Io(e.to_string()))
}

/// Hands `fd` (non-blocking) to the reactor, which writes what it reads into the capture's `stream`.
///
/// # Errors
/// [`Error::Io`] when the reactor cannot start; `fd` is closed then.
pub fn attach(
    id: u64,
    capture: Arc<SharedCapture>,
    stream: Stream,
    fd: OwnedFd,
) -> Result<(), Error> {
    capture.reader_attached();
    let keep = capture.clone();
    send(
        id,
        Command::Attach {
            id,
            capture,
            stream,
            fd,
        },
    )
    .inspect_err(|_| keep.reader_ended())
}

/// Ends the capture once every pipe reached end-of-file, or after `within`, reading first every byte the
/// pipes hold then (a `within` past any representable instant: at end-of-file only); `done` runs on a reactor
/// thread after the capture is finished.
///
/// # Errors
/// [`Error::Io`] when the reactor cannot start (`done` is dropped uncalled).
pub fn drain(
    id: u64,
    capture: Arc<SharedCapture>,
    within: Duration,
    done: Done,
) -> Result<(), Error> {
    send(
        id,
        Command::Drain {
            id,
            capture,
            within,
            done,
        },
    )
}

/// Closes the capture's pipes without reading further; pending drains complete.
pub fn stop(id: u64) {
    let _ = send(id, Command::Stop { id });
}

struct Pipe {
    fd: OwnedFd,
    id: u64,
    stream: Stream,
    capture: Arc<SharedCapture>,
    /// In the ready queue: it had data when last read.
    queued: bool,
}

struct Entry {
    capture: Arc<SharedCapture>,
    pipes: Vec<Token>,
    /// A drain was asked for: the capture is finished when its last pipe closes.
    draining: bool,
    deadline: Option<Instant>,
    done: Vec<Done>,
}

struct Reactor {
    poll: Poll,
    pipes: HashMap<Token, Pipe>,
    captures: HashMap<u64, Entry>,
    ready: VecDeque<Token>,
    next: usize,
    buf: Vec<u8>,
    /// /dev/null, where bytes no memory or file keeps go without a copy; without it every byte is read.
    null: Option<std::fs::File>,
}

/// How much nicer the capture threads are than the thread that started them: a JavaScript event loop of this process
/// that wakes while they copy gigabytes is then scheduled before them. They never fork, so no command inherits it.
const IO_NICER: i32 = 5;

/// Lowers the calling thread's priority only (Linux nice is per thread), relative to what it inherited, so a host
/// started with `nice` keeps its order; where that is refused it stays as it was.
fn yield_to_event_loop() {
    // SAFETY: gettid, getpriority and setpriority take plain integers and touch no memory of ours.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let inherited = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (inherited + IO_NICER).min(19));
    }
}

fn run(n: usize, poll: Poll) {
    yield_to_event_loop();
    let mut reactor = Reactor {
        poll,
        pipes: HashMap::new(),
        captures: HashMap::new(),
        ready: VecDeque::new(),
        next: 0,
        buf: vec![0; READ_SIZE],
        null: std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .ok(),
    };
    let mut events = Events::with_capacity(1024);
    loop {
        // A panic in one turn must not end the thread every capture on it depends on.
        let turn = catch_unwind(AssertUnwindSafe(|| reactor.turn(n, &mut events)));
        if turn.is_err() {
            reactor.ready.clear();
            for pipe in reactor.pipes.values_mut() {
                pipe.queued = false;
            }
        }
    }
}

impl Reactor {
    fn turn(&mut self, n: usize, events: &mut Events) {
        let timeout = if self.ready.is_empty() {
            self.next_deadline()
                .map(|d| d.saturating_duration_since(Instant::now()))
        } else {
            Some(Duration::ZERO)
        };
        if let Err(e) = self.poll.poll(events, timeout) {
            if e.kind() != std::io::ErrorKind::Interrupted {
                // Nothing sensible to do but try again a little later.
                std::thread::sleep(Duration::from_millis(10));
            }
            return;
        }
        for event in events.iter() {
            self.mark_ready(event.token());
        }
        let commands = std::mem::take(&mut *lock(&threads().expect("running")[n].queue));
        for command in commands {
            self.command(command);
        }
        for _ in 0..self.ready.len() {
            let Some(token) = self.ready.pop_front() else {
                break;
            };
            match self.read(token, BUDGET) {
                Read::More(_) => self.ready.push_back(token),
                Read::Empty => {
                    if let Some(pipe) = self.pipes.get_mut(&token) {
                        pipe.queued = false;
                    }
                }
                Read::Ended => self.close(token),
            }
        }
        self.expire();
    }

    fn mark_ready(&mut self, token: Token) {
        if let Some(pipe) = self.pipes.get_mut(&token) {
            if !pipe.queued {
                pipe.queued = true;
                self.ready.push_back(token);
            }
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.captures.values().filter_map(|e| e.deadline).min()
    }

    fn command(&mut self, command: Command) {
        match command {
            Command::Attach {
                id,
                capture,
                stream,
                fd,
            } => {
                let token = Token(self.next);
                self.next = (self.next + 1) % (usize::MAX - 1);
                let raw = fd.as_raw_fd();
                if self
                    .poll
                    .registry()
                    .register(&mut SourceFd(&raw), token, Interest::READABLE)
                    .is_err()
                {
                    capture.reader_ended();
                    return;
                }
                let entry = self.captures.entry(id).or_insert_with(|| Entry {
                    capture: capture.clone(),
                    pipes: Vec::new(),
                    draining: false,
                    deadline: None,
                    done: Vec::new(),
                });
                entry.pipes.push(token);
                self.pipes.insert(
                    token,
                    Pipe {
                        fd,
                        id,
                        stream,
                        capture,
                        queued: false,
                    },
                );
                // Bytes written before the registration are read without waiting for an edge.
                self.mark_ready(token);
            }
            Command::Drain {
                id,
                capture,
                within,
                done,
            } => match self.captures.get_mut(&id) {
                Some(entry) => {
                    entry.draining = true;
                    // A drain too long to have a deadline (`Duration::MAX`) waits for end-of-file alone.
                    if let Some(deadline) = Instant::now().checked_add(within) {
                        entry.deadline = Some(entry.deadline.map_or(deadline, |d| d.min(deadline)));
                    }
                    entry.done.push(done);
                }
                None => {
                    capture.finish();
                    call(done);
                }
            },
            Command::Stop { id } => {
                for token in self.pipes_of(id) {
                    self.close(token);
                }
            }
        }
    }

    /// The capture's attached pipes (a copy: closing them changes the set).
    fn pipes_of(&self, id: u64) -> Vec<Token> {
        self.captures
            .get(&id)
            .map(|e| e.pipes.clone())
            .unwrap_or_default()
    }

    /// Reads at most `budget` times from the pipe.
    fn read(&mut self, token: Token, budget: usize) -> Read {
        let Some(pipe) = self.pipes.get(&token) else {
            return Read::Empty;
        };
        for _ in 0..budget {
            let read = match take_unread(pipe, self.null.as_ref(), &mut self.buf) {
                Some(taken) => taken,
                None => read_once(pipe, &mut self.buf, READ_SIZE),
            };
            match read {
                Read::More(_) => {}
                other => return other,
            }
        }
        Read::More(0)
    }

    /// Ends every capture whose drain expired: reads what each pipe holds now, then finishes it.
    fn expire(&mut self) {
        let now = Instant::now();
        let expired: Vec<u64> = self
            .captures
            .iter()
            .filter(|(_, e)| e.deadline.is_some_and(|d| d <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            for token in self.pipes_of(id) {
                if let Some(pipe) = self.pipes.get(&token) {
                    read_available(pipe, &mut self.buf);
                }
                self.close(token);
            }
        }
    }

    /// Deregisters and closes a pipe; the capture ends when it was its last and a drain was asked for.
    fn close(&mut self, token: Token) {
        let Some(pipe) = self.pipes.remove(&token) else {
            return;
        };
        let _ = self
            .poll
            .registry()
            .deregister(&mut SourceFd(&pipe.fd.as_raw_fd()));
        pipe.capture.reader_ended();
        let id = pipe.id;
        drop(pipe);
        let Some(entry) = self.captures.get_mut(&id) else {
            return;
        };
        entry.pipes.retain(|t| *t != token);
        if !entry.pipes.is_empty() {
            return;
        }
        let entry = self.captures.remove(&id).expect("present");
        if entry.draining {
            entry.capture.finish();
        }
        for done in entry.done {
            call(done);
        }
    }
}

enum Read {
    /// Read this many bytes; there may be more.
    More(usize),
    /// Nothing to read now.
    Empty,
    /// End-of-file, an error, or a finished capture: the pipe is done.
    Ended,
}

fn read_once(pipe: &Pipe, buf: &mut [u8], max: usize) -> Read {
    loop {
        let max = max.min(buf.len());
        // SAFETY: buf is a live, writable buffer of at least `max` bytes; the fd is owned by `pipe`.
        let n = unsafe { libc::read(pipe.fd.as_raw_fd(), buf.as_mut_ptr().cast(), max) };
        if n > 0 {
            // Bytes that arrive after the capture finished belong to no result; the pipe is abandoned.
            return if pipe
                .capture
                .write_from_pipe(pipe.stream, &buf[..n as usize])
            {
                Read::More(n as usize)
            } else {
                Read::Ended
            };
        }
        if n == 0 {
            return Read::Ended;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) => return Read::Empty,
            _ => return Read::Ended,
        }
    }
}

/// Moves what the pipe holds into the spill file without reading it, or drops what memory would not keep (see
/// `SharedCapture::take_unread`); `None` to read as usual.
#[cfg(target_os = "linux")]
fn take_unread(pipe: &Pipe, null: Option<&std::fs::File>, buf: &mut [u8]) -> Option<Read> {
    use std::os::fd::AsFd;
    let null = null?;
    let waiting = crate::pipe_moves::waiting(pipe.fd.as_fd());
    let taken =
        pipe.capture
            .take_unread(pipe.stream, pipe.fd.as_fd(), waiting, null.as_fd(), buf)?;
    Some(if taken {
        Read::More(waiting)
    } else {
        Read::Ended
    })
}

#[cfg(not(target_os = "linux"))]
fn take_unread(_: &Pipe, _: Option<&std::fs::File>, _: &mut [u8]) -> Option<Read> {
    None
}

/// Reads every byte the pipe holds right now (and no more: a live writer could otherwise keep this going).
fn read_available(pipe: &Pipe, buf: &mut [u8]) {
    let mut held: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int; the fd is owned by `pipe`.
    if unsafe { libc::ioctl(pipe.fd.as_raw_fd(), libc::FIONREAD, &mut held) } != 0 {
        return;
    }
    let mut left = held.max(0) as usize;
    while left > 0 {
        match read_once(pipe, buf, left) {
            Read::More(n) => left = left.saturating_sub(n),
            Read::Empty | Read::Ended => return,
        }
    }
}

fn call(done: Done) {
    // A callback that panics must not take the reactor thread with it.
    let _ = catch_unwind(AssertUnwindSafe(done));
}
