//! One readiness reactor for every output pipe: a fixed set of threads, each waiting in epoll (through mio) on
//! the pipes of its share of captures. An idle pipe costs one epoll registration, no thread and no CPU.
//!
//! A capture's pipes all live on one thread, which also ends the capture: at end-of-file of every pipe, or
//! when the drain the supervisor asked for expires, after reading every byte the pipes hold at that moment.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsRawFd, OwnedFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};

use crate::capture::Stream;
use crate::error::Error;
use crate::shared::{lock, SharedCapture};

mod pipe;
mod pool;
use pipe::{read_available, read_once, take_unread, Pipe, Read};
pub use pool::commands_sent;
use pool::send;

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

fn run(n: usize, poll: Poll) {
    pool::yield_to_event_loop();
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
        let commands = std::mem::take(&mut *lock(&pool::threads().expect("running")[n].queue));
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

fn call(done: Done) {
    // A callback that panics must not take the reactor thread with it.
    let _ = catch_unwind(AssertUnwindSafe(done));
}
