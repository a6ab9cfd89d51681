//! A terminal job under its runner: the runner holds the pseudo-terminal's master side and copies what the program
//! writes into the command's stdout pipe, where the capture reads it as it reads any command's output (tail, spill
//! file, rings: the one lossless byte path); the same bytes feed its model of the screen, whose answers to the
//! program's queries go back as input. The supervisor's control lines (`wire::control`) bring typed input, a new
//! size, a request for the screen, or an interrupt.

pub mod grid;
pub mod model;
pub mod pty;

use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::status::Status;
use crate::wire::control::Control;
use crate::wire::status::Status as Line;
use crate::wire::term::Size;
use model::Model;

/// The most read from the terminal in one go; the kernel hands out at most a few KiB per read anyway.
const CHUNK: usize = 64 * 1024;
/// How long the runner keeps copying what is left once the command has ended, should the host stop reading.
const FINISH_BOUND: Duration = Duration::from_secs(5);

pub struct Term {
    master: OwnedFd,
    out: OwnedFd,
    model: Model,
    /// Read from the program, not yet in the output pipe: nothing more is read until it is (the program then waits).
    to_out: Vec<u8>,
    written: usize,
    /// For the program (typed input, the model's replies), not yet taken by the terminal.
    to_program: Vec<u8>,
    /// Every process has let go of the terminal's other side: reads end with EIO.
    hung_up: bool,
    buf: Vec<u8>,
}

impl Term {
    /// The relay between `master` and `out` (the command's stdout pipe) for a terminal of `size`.
    pub fn new(master: OwnedFd, out: OwnedFd, size: Size) -> Term {
        for fd in [&master, &out] {
            if let Ok(flags) = fcntl(fd, FcntlArg::F_GETFL) {
                let _ = fcntl(
                    fd,
                    FcntlArg::F_SETFL(OFlag::from_bits_retain(flags) | OFlag::O_NONBLOCK),
                );
            }
        }
        Term {
            master,
            out,
            model: Model::new(size),
            to_out: Vec::new(),
            written: 0,
            to_program: Vec::new(),
            hung_up: false,
            buf: vec![0; CHUNK],
        }
    }

    /// The descriptors to wait on now: the terminal while there is room for its output or input waits for it, the
    /// pipe while output waits for it. A terminal with nothing wanted of it is left out (its hang-up would wake the
    /// loop for ever).
    pub fn interest(&self) -> Vec<PollFd<'_>> {
        let mut wanted = PollFlags::empty();
        if !self.hung_up && self.to_out.is_empty() {
            wanted |= PollFlags::POLLIN;
        }
        if !self.hung_up && !self.to_program.is_empty() {
            wanted |= PollFlags::POLLOUT;
        }
        let mut fds = Vec::with_capacity(2);
        if !wanted.is_empty() {
            fds.push(PollFd::new(self.master.as_fd(), wanted));
        }
        if !self.to_out.is_empty() {
            fds.push(PollFd::new(self.out.as_fd(), PollFlags::POLLOUT));
        }
        fds
    }

    /// Moves what can move now, without waiting: input to the program, its output through the model into the pipe.
    pub fn pump(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        loop {
            self.write_input();
            if !self.flush_output() || self.hung_up {
                break;
            }
            match nix::unistd::read(&self.master, &mut buf) {
                Ok(0) | Err(Errno::EIO) => self.hung_up = true,
                Ok(n) => {
                    self.model.feed(&buf[..n]);
                    self.to_program.extend(self.model.take_replies());
                    self.to_out.extend_from_slice(&buf[..n]);
                }
                Err(Errno::EINTR) => {}
                Err(_) => break,
            }
        }
        self.buf = buf;
    }

    /// One of the host's lines: input, a new size, the screen asked for (answered on the status channel).
    pub fn control(&mut self, control: Control, status: &Status) {
        match control {
            Control::Input(bytes) => {
                self.to_program.extend_from_slice(&bytes);
                self.pump();
            }
            Control::Resize(size) => {
                if pty::resize(&self.master, size).is_ok() {
                    self.model.resize(size);
                }
            }
            Control::Screen => status.line(&Line::Screen(self.model.screen()).line()),
            // On a terminal an interrupt is its ctrl-c: the line discipline signals whichever group is in front.
            Control::Interrupt => {
                self.to_program.push(0x03);
                self.pump();
            }
            // The course's lines never come here (`Control::for_terminal`).
            Control::Life(_) | Control::Kill(_) | Control::OutputEnded => {}
        }
    }

    /// The command has ended and nothing holds its terminal: copies what is left into the pipe (for a bounded time,
    /// should the host stop reading), then lets both go.
    pub fn finish(mut self) {
        let until = Instant::now() + FINISH_BOUND;
        loop {
            self.pump();
            let fds = self.interest();
            if fds.is_empty() && self.to_out.is_empty() {
                return;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            let mut fds = fds;
            let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
            if poll(&mut fds, PollTimeout::from(ms)).is_err() {
                return;
            }
        }
    }

    /// Writes waiting input while the terminal takes it; what it cannot take waits (a terminal gone drops it).
    fn write_input(&mut self) {
        while !self.to_program.is_empty() && !self.hung_up {
            match nix::unistd::write(&self.master, &self.to_program) {
                Ok(n) => {
                    self.to_program.drain(..n);
                }
                Err(Errno::EINTR) => {}
                Err(Errno::EAGAIN) => return,
                Err(_) => self.to_program.clear(),
            }
        }
    }

    /// Writes held output into the pipe; true once none is held. A pipe nobody reads any more drops it.
    fn flush_output(&mut self) -> bool {
        while self.written < self.to_out.len() {
            match nix::unistd::write(&self.out, &self.to_out[self.written..]) {
                Ok(n) => self.written += n,
                Err(Errno::EINTR) => {}
                Err(Errno::EAGAIN) => return false,
                Err(_) => self.written = self.to_out.len(),
            }
        }
        self.to_out.clear();
        self.written = 0;
        true
    }
}

/// Acts on one of the supervisor's terminal lines: a terminal job's goes to its relay; an interrupt without a
/// terminal is SIGINT to the command's group (with one, ctrl-c is input like any other).
pub fn control(control: Control, term: Option<&mut Term>, bash: Pid, status: &Status) {
    match (term, control) {
        (None, Control::Interrupt) => {
            let _ = killpg(bash, Signal::SIGINT);
        }
        (Some(term), control) => term.control(control, status),
        (None, _) => {}
    }
}
