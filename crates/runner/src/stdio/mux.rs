//! `--stdio`: a runner that serves over one byte stream (an SSH channel, say). Framed requests arrive on stdin and
//! framed events leave on stdout (`shellring_wire::frames`); each command is forked and supervised exactly as the fork
//! server's (`life::command::run_request`: subreaper, new session, confinement, limits, the request's environment
//! only), with its status socket read here and its stdout and stderr forwarded tagged with its id (`command`). A
//! confined command's plan is first completed with this host's paths (`policy`): the server that sent it knows only
//! the session's part.
//!
//! Output leaves without passing through this process: a command's pipe that has bytes queues one frame, sized by
//! what the pipe holds when the frame reaches the stream, and those bytes are spliced from the pipe onto the stream
//! (`splice`). Flow control: while a pipe's frame waits the pipe is not polled, so a slow reader on the far
//! side fills the pipe and blocks the command's writes; the bytes wait in the pipes, and memory stays bounded. The
//! queue is first come first served, one frame per pipe at most: a command that prints a lot takes turns with the
//! others. When stdin ends (the stream closed), on SIGTERM/SIGINT/SIGHUP or when the parent dies,
//! every command's lifeline is dropped (its runner kills its whole tree) and the server exits once they are gone.

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::sys::signal::{kill, Signal};
use nix::sys::signalfd::SignalFd;
use nix::sys::socket::{shutdown, Shutdown};

use super::command::{Command, Source, CHUNK};
use super::events::{self, stdin, stdout};
use super::look;
use super::outbound::Outbound;
use super::policy::{self, StreamTmp};
use super::room::Room;
use crate::failure::RunnerError;
use crate::life::signals;
use crate::serve::server::{become_server, Server};
use crate::wire::control::Control;
use crate::wire::frames::{self as frame, Frame};
use crate::wire::request;

/// The stream's capacity, when it is a pipe.
const STREAM_PIPE: usize = 1 << 20;
/// What a command pipe's bytes are read into when they go nowhere (the stream failed).
const DISCARD: usize = 64 << 10;
/// After the stream closed, how long runners get to end their trees before the server ends what is left itself.
const CLOSE_BOUND: Duration = Duration::from_secs(5);

/// Serves until stdin ends. Returns the process exit code.
pub fn serve() -> u8 {
    let Some(sfd) = become_server("--stdio") else {
        return 1;
    };
    for fd in [stdin(), stdout()] {
        if let Ok(flags) = fcntl(fd, FcntlArg::F_GETFL) {
            let _ = fcntl(
                fd,
                FcntlArg::F_SETFL(OFlag::from_bits_retain(flags) | OFlag::O_NONBLOCK),
            );
        }
    }
    // Room on the stream for a few whole frames (where it is a pipe and the limit allows): each splice moves more,
    // with fewer waits for the far side to read.
    let _ = fcntl(stdout(), FcntlArg::F_SETPIPE_SZ(STREAM_PIPE as i32));
    let mut mux = Mux {
        commands: HashMap::new(),
        outbound: Outbound::default(),
        inbound: Vec::new(),
        reaper: Server::new(false),
        tmp: StreamTmp::make(),
        room: Room::of(stdout()),
    };
    mux.run(&sfd);
    mux.reaper.end_strays();
    if let Some(tmp) = &mux.tmp {
        tmp.remove();
    }
    0
}

struct Mux {
    commands: HashMap<u32, Command>,
    outbound: Outbound,
    inbound: Vec<u8>,
    reaper: Server,
    /// The session's temporary directory on this host, for its confined commands.
    tmp: Option<StreamTmp>,
    /// When writes to a stream that was full start again.
    room: Room,
}

impl Mux {
    /// Serves until the stream has ended and the commands are gone (or had their bound to go).
    fn run(&mut self, sfd: &SignalFd) {
        let mut closing: Option<Instant> = None;
        loop {
            if closing
                .is_some_and(|since| self.commands.is_empty() || since.elapsed() > CLOSE_BOUND)
            {
                return;
            }
            let resting = self.room.rest_left(Instant::now());
            let sending = !self.outbound.is_empty() && !self.outbound.broken && resting.is_none();
            let events = events::wait(sfd, closing.is_none(), sending, resting, &self.commands);
            if events.signalled {
                let mut stop = false;
                while let Some(signal) = signals::next(sfd) {
                    stop |= signal != libc::SIGCHLD;
                }
                self.reaper.reap();
                if stop && closing.is_none() {
                    closing = Some(self.close_all());
                }
            }
            if events.stdin && closing.is_none() && !self.read_stdin(sfd) {
                closing = Some(self.close_all());
            }
            for (id, which) in events.ready {
                self.read_command(id, which);
            }
            if events.writable {
                self.room.writable(stdout(), Instant::now());
            }
            // Whatever the events queued goes out now, as much as stdout takes (unless it is resting).
            if self.room.rest_left(Instant::now()).is_none() {
                self.write_stdout();
            }
        }
    }

    /// Reads and acts on what stdin holds; false once it ended or carried a corrupt frame.
    fn read_stdin(&mut self, sfd: &SignalFd) -> bool {
        let mut buf = vec![0u8; CHUNK];
        loop {
            match nix::unistd::read(stdin(), &mut buf) {
                Ok(0) => return false,
                Ok(n) => self.inbound.extend_from_slice(&buf[..n]),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => break,
                Err(_) => return false,
            }
        }
        match frame::split(&mut self.inbound) {
            Ok(frames) => {
                let mut frames = frames.into_iter().peekable();
                while let Some(next) = frames.next() {
                    if next.kind != frame::START {
                        self.dispatch(next);
                        continue;
                    }
                    // The control lines sent with the request (its terms) reach the runner before bash starts.
                    let mut early = Vec::new();
                    while let Some(line) =
                        frames.next_if(|f| f.kind == frame::CONTROL && f.id == next.id)
                    {
                        early.extend(line.payload);
                        early.push(b'\n');
                    }
                    self.start(next.id, &next.payload, early, sfd);
                }
                true
            }
            Err(e) => {
                eprintln!("shellring-runner --stdio: {e}");
                false
            }
        }
    }

    fn dispatch(&mut self, Frame { kind, id, payload }: Frame) {
        let Some(command) = self.commands.get_mut(&id) else {
            return;
        };
        match kind {
            frame::CONTROL => command.control(&payload),
            frame::RELEASE => {
                // Only our half: the runner sees its lifeline end, and our read side still sees it exit.
                let _ = shutdown(command.status.as_raw_fd(), Shutdown::Write);
                let _ = kill(command.runner, Signal::SIGCONT);
            }
            frame::LOOK => {
                let snapshot = look::snapshot(command.runner);
                self.outbound
                    .push(frame::encode(frame::LOOK, id, &snapshot));
            }
            _ => {}
        }
    }

    fn start(&mut self, id: u32, body: &[u8], early: Vec<u8>, sfd: &SignalFd) {
        let mut request = match request::parse(body) {
            Ok(request) => request,
            Err(e) => return self.refuse(id, &RunnerError::Request(e).line()),
        };
        policy::complete(&mut request.plan, &mut request.env, self.tmp.as_ref());
        // A frame still under way holds a pipe its command already let go (drained).
        let foreign: Vec<_> = self
            .commands
            .values()
            .flat_map(Command::descriptors)
            .chain(self.outbound.pipes())
            .chain([sfd.as_fd().as_raw_fd()])
            .collect();
        match Command::fork(request, early, &foreign) {
            Ok(command) => {
                self.reaper.runners.insert(command.runner);
                self.commands.insert(id, command);
            }
            Err(line) => self.refuse(id, &line),
        }
    }

    /// A command that could not be forked: one status line, then its end.
    fn refuse(&mut self, id: u32, line: &str) {
        self.outbound
            .push(frame::encode(frame::STATUS, id, line.as_bytes()));
        self.outbound.push(frame::encode(frame::GONE, id, b""));
    }

    fn read_command(&mut self, id: u32, source: Source) {
        let Some(command) = self.commands.get_mut(&id) else {
            return;
        };
        if let Source::Status = source {
            let lines = command.read_status();
            for line in lines {
                self.outbound.push(frame::encode(frame::STATUS, id, &line));
            }
            return self.settle(id);
        }
        let index = source.index();
        let Some(pipe) = command.pipes[index].clone() else {
            return;
        };
        if self.outbound.broken {
            return self.discard(id, index, &pipe);
        }
        command.sending[index] = true;
        let kind = [frame::STDOUT, frame::STDERR][index];
        self.outbound.push_pipe(kind, id, pipe);
    }

    /// The stream failed: what the pipe holds goes nowhere, but it is still read, so the command is never held up.
    fn discard(&mut self, id: u32, index: usize, pipe: &std::os::fd::OwnedFd) {
        let mut buf = [0u8; DISCARD];
        match nix::unistd::read(pipe, &mut buf) {
            Ok(0) | Err(Errno::EBADF | Errno::EIO) => self.pipe_ended(id, index),
            _ => {}
        }
    }

    /// A command's pipe reached end-of-file: it is closed, and the command's output may be over.
    fn pipe_ended(&mut self, id: u32, index: usize) {
        if let Some(command) = self.commands.get_mut(&id) {
            command.pipes[index] = None;
        }
        self.settle(id);
    }

    /// Tells the runner once its command's output has ended (both pipes at end-of-file); once the runner says the
    /// output is over, sends what the pipes hold then, and its `over` line behind it; and sends the command's end once
    /// its runner has exited and its pipes are closed (a killed runner's end soon: the server ends what it left).
    fn settle(&mut self, id: u32) {
        let Some(command) = self.commands.get_mut(&id) else {
            return;
        };
        if command.held_over.is_some() {
            for index in 0..2 {
                if let (Some(pipe), false) = (&command.pipes[index], command.sending[index]) {
                    command.sending[index] = true;
                    command.last[index] = true;
                    let kind = [frame::STDOUT, frame::STDERR][index];
                    self.outbound.push_pipe(kind, id, pipe.clone());
                }
            }
        }
        let output_done = command.pipes.iter().all(Option::is_none);
        if !output_done {
            return;
        }
        if let Some(over) = command.held_over.take() {
            self.outbound.push(frame::encode(frame::STATUS, id, &over));
        } else if command.status_open && !command.told_ended {
            command.told_ended = true;
            command.control(Control::OutputEnded.line().as_bytes());
        }
        if !command.status_open {
            self.commands.remove(&id);
            self.outbound.push(frame::encode(frame::GONE, id, b""));
        }
    }

    /// Writes frames until stdout is full or nothing waits; each pipe whose frame left is polled again.
    fn write_stdout(&mut self) {
        let commands = &self.commands;
        let current = |id: u32, index: usize, pipe: &std::rc::Rc<std::os::fd::OwnedFd>| {
            commands
                .get(&id)
                .and_then(|command| command.pipes[index].as_ref())
                .is_some_and(|own| std::rc::Rc::ptr_eq(own, pipe))
        };
        let left = self.outbound.write(stdout(), current);
        for done in left {
            let Some(command) = self.commands.get_mut(&done.id) else {
                continue;
            };
            command.sending[done.index] = false;
            if done.ended || command.last[done.index] {
                self.pipe_ended(done.id, done.index);
            } else if command.held_over.is_some() {
                // A frame begun before the runner's `over`: the pipe's last one follows it.
                self.settle(done.id);
            }
        }
        // The far side is gone: commands' output is read and dropped from now on.
        if self.outbound.broken {
            for command in self.commands.values_mut() {
                command.sending = [false; 2];
            }
        }
    }

    /// Drops every lifeline; returns when closing began.
    fn close_all(&mut self) -> Instant {
        for command in self.commands.values() {
            let _ = shutdown(command.status.as_raw_fd(), Shutdown::Write);
            let _ = kill(command.runner, Signal::SIGCONT);
        }
        Instant::now()
    }
}
