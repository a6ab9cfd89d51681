//! What wakes the `--stdio` server: its signals, its stream (stdin to read, stdout with room), and each command's
//! status socket and output pipes (a pipe whose frame waits to leave is not polled: that is the flow control).

use std::collections::HashMap;
use std::os::fd::{AsFd, BorrowedFd};
use std::time::Duration;

use nix::poll::{ppoll, PollFd, PollFlags};
use nix::sys::signalfd::SignalFd;
use nix::sys::time::TimeSpec;

use super::command::{Command, Source};

/// fd 0 and fd 1: sshd's channel pipes, open for the life of the process.
pub fn stdin() -> BorrowedFd<'static> {
    // SAFETY: fd 0 stays open for the life of the process; it is only ever borrowed.
    unsafe { BorrowedFd::borrow_raw(0) }
}

pub fn stdout() -> BorrowedFd<'static> {
    // SAFETY: fd 1 stays open for the life of the process; it is only ever borrowed.
    unsafe { BorrowedFd::borrow_raw(1) }
}

pub struct Events {
    pub stdin: bool,
    /// stdout was asked for room and has some.
    pub writable: bool,
    pub signalled: bool,
    pub ready: Vec<(u32, Source)>,
}

/// Waits for what the server acts on: a signal, stdin (while `reading`), room on stdout (while `sending`), a
/// command's status or output; while closing it wakes now and then, and while `resting`, when the rest ends.
pub fn wait(
    sfd: &SignalFd,
    reading: bool,
    sending: bool,
    resting: Option<Duration>,
    commands: &HashMap<u32, Command>,
) -> Events {
    let when = |on: bool| {
        if on {
            PollFlags::POLLIN
        } else {
            PollFlags::empty()
        }
    };
    let mut fds = vec![
        PollFd::new(sfd.as_fd(), PollFlags::POLLIN),
        PollFd::new(stdin(), when(reading)),
        PollFd::new(
            stdout(),
            if sending {
                PollFlags::POLLOUT
            } else {
                PollFlags::empty()
            },
        ),
    ];
    let mut sources = Vec::new();
    for (&id, command) in commands {
        if command.status_open {
            fds.push(PollFd::new(command.status.as_fd(), PollFlags::POLLIN));
            sources.push((id, Source::Status));
        }
        for source in [Source::Out, Source::Err] {
            let index = source.index();
            if let (false, Some(pipe)) = (command.sending[index], &command.pipes[index]) {
                fds.push(PollFd::new(pipe.as_fd(), PollFlags::POLLIN));
                sources.push((id, source));
            }
        }
    }
    // While closing, wake now and then to check the bound even if nothing happens; while resting, when it ends.
    let bound = (!reading).then_some(Duration::from_millis(100));
    let timeout = resting.into_iter().chain(bound).min();
    let mut events = Events {
        stdin: false,
        writable: false,
        signalled: false,
        ready: Vec::new(),
    };
    if ppoll(&mut fds, timeout.map(TimeSpec::from_duration), None).is_err() {
        return events;
    }
    let is = |fd: &PollFd| fd.any().unwrap_or(false);
    events.signalled = is(&fds[0]);
    events.stdin = is(&fds[1]);
    events.writable = is(&fds[2]);
    events.ready = sources
        .into_iter()
        .zip(&fds[3..])
        .filter(|(_, fd)| is(fd))
        .map(|(source, _)| source)
        .collect();
    events
}
