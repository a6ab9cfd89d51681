//! `--stdio`: a runner that serves over one byte stream (an SSH channel, say). Framed requests arrive on stdin and
//! framed events leave on stdout (`stdio_frame`); each command is forked and supervised exactly as the fork server's
//! (`serve::run_request`: subreaper, new session, confinement, limits, the request's environment only), with its
//! status socket read here and its stdout and stderr forwarded tagged with its id. A confined command's plan is first
//! completed with this host's paths (`stdio_policy`): the server that sent it knows only the session's part.
//!
//! Output leaves without passing through this process: a command's pipe that has bytes queues one frame, sized by
//! what the pipe holds when the frame reaches the stream, and those bytes are spliced from the pipe onto the stream
//! (`stdio_splice`). Flow control: while a pipe's frame waits the pipe is not polled, so a slow reader on the far
//! side fills the pipe and blocks the command's writes; the bytes wait in the pipes, and memory stays bounded. The
//! queue is first come first served, one frame per pipe at most: a command that prints a lot takes turns with the
//! others. When stdin ends (the stream closed), on SIGTERM/SIGINT/SIGHUP or when the parent dies,
//! every command's lifeline is dropped (its runner kills its whole tree) and the server exits once they are gone.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::rc::Rc;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{ppoll, PollFd, PollFlags};
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::socket::{shutdown, socketpair, AddressFamily, Shutdown, SockFlag, SockType};
use nix::sys::time::TimeSpec;
use nix::unistd::{fork, ForkResult, Pid};

use crate::error::RunnerError;
use crate::serve::{become_server, run_request, set_dumpable, Server};
use crate::status::Status;
use crate::stdio_frame::{self as frame, Frame};
use crate::stdio_look;
use crate::stdio_policy::{self, StreamTmp};
use crate::stdio_room::Room;
use crate::stdio_splice::{PipeFrame, Step};
use crate::supervise::Parent;
use crate::{proc_tree, request, signals, stage};

/// The command pipes' capacity (the most one frame carries: fewer, larger frames for a command that prints a lot),
/// and one read from stdin.
const CHUNK: usize = 256 << 10;
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
    for fd in [0, 1] {
        // SAFETY: fds 0 and 1 are open for the life of the process (sshd's channel pipes); borrowed only here.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        if let Ok(flags) = fcntl(fd, FcntlArg::F_GETFL) {
            let _ = fcntl(
                fd,
                FcntlArg::F_SETFL(OFlag::from_bits_retain(flags) | OFlag::O_NONBLOCK),
            );
        }
    }
    // Room on the stream for a few whole frames (where it is a pipe and the limit allows): each splice moves more,
    // with fewer waits for the far side to read.
    // SAFETY: fd 1 stays open for the life of the process.
    let _ = fcntl(
        unsafe { BorrowedFd::borrow_raw(1) },
        FcntlArg::F_SETPIPE_SZ(STREAM_PIPE as i32),
    );
    let mut mux = Mux {
        commands: HashMap::new(),
        queue: VecDeque::new(),
        written: 0,
        inbound: Vec::new(),
        reaper: Server::new(false),
        out_broken: false,
        tmp: StreamTmp::make(),
        // SAFETY: fd 1 stays open for the life of the process.
        room: Room::of(unsafe { BorrowedFd::borrow_raw(1) }),
    };
    let mut closing: Option<Instant> = None;
    loop {
        if closing.is_some_and(|since| mux.commands.is_empty() || since.elapsed() > CLOSE_BOUND) {
            break;
        }
        let events = mux.wait(&sfd, closing.is_none());
        if events.signalled {
            let mut stop = false;
            while let Some(signal) = signals::next(&sfd) {
                stop |= signal != libc::SIGCHLD;
            }
            mux.reaper.reap();
            if stop && closing.is_none() {
                closing = Some(mux.close_all());
            }
        }
        if events.stdin && closing.is_none() && !mux.read_stdin(&sfd) {
            closing = Some(mux.close_all());
        }
        for (id, which) in events.ready {
            mux.read_command(id, which);
        }
        if events.writable {
            // SAFETY: fd 1 stays open for the life of the process.
            mux.room
                .writable(unsafe { BorrowedFd::borrow_raw(1) }, Instant::now());
        }
        // Whatever the events queued goes out now, as much as stdout takes (unless it is resting).
        if mux.room.rest_left(Instant::now()).is_none() {
            mux.write_stdout();
        }
    }
    mux.reaper.end_strays();
    if let Some(tmp) = &mux.tmp {
        tmp.remove();
    }
    0
}

/// A readable descriptor of one command.
#[derive(Clone, Copy)]
enum Source {
    Status,
    Out,
    Err,
}

struct Command {
    runner: Pid,
    status: OwnedFd,
    status_open: bool,
    /// A partial status line.
    line: Vec<u8>,
    out: Option<Rc<OwnedFd>>,
    err: Option<Rc<OwnedFd>>,
    /// Stdout's and stderr's pipe each has a frame in the queue: it is not polled until that frame has left.
    sending: [bool; 2],
    /// bash's pid, which is its process group.
    group: Option<Pid>,
    /// Signals asked for before bash started.
    pending: Vec<Signal>,
    /// The group was signalled: what stays in it is on its way out and is not counted as left running.
    condemned: bool,
    /// bash's exit status has been forwarded.
    ended: bool,
    over_sent: bool,
}

struct Events {
    stdin: bool,
    /// stdout was asked for room and has some.
    writable: bool,
    signalled: bool,
    ready: Vec<(u32, Source)>,
}

/// A frame waiting for stdout.
enum Out {
    Bytes(Vec<u8>),
    Pipe(PipeFrame),
}

impl Source {
    fn index(self) -> usize {
        match self {
            Source::Err => 1,
            _ => 0,
        }
    }
}

struct Mux {
    commands: HashMap<u32, Command>,
    queue: VecDeque<Out>,
    /// Bytes of the front frame already written, when it is `Out::Bytes`.
    written: usize,
    inbound: Vec<u8>,
    reaper: Server,
    /// stdout failed: the far side is gone; frames are dropped from now on.
    out_broken: bool,
    /// The session's temporary directory on this host, for its confined commands.
    tmp: Option<StreamTmp>,
    /// When writes to a stream that was full start again.
    room: Room,
}

impl Mux {
    fn wait(&mut self, sfd: &nix::sys::signalfd::SignalFd, reading: bool) -> Events {
        let resting = self.room.rest_left(Instant::now());
        // SAFETY: fds 0 and 1 stay open for the life of the process.
        let (stdin, stdout) = unsafe { (BorrowedFd::borrow_raw(0), BorrowedFd::borrow_raw(1)) };
        let mut fds = vec![
            PollFd::new(sfd.as_fd(), PollFlags::POLLIN),
            PollFd::new(
                stdin,
                if reading {
                    PollFlags::POLLIN
                } else {
                    PollFlags::empty()
                },
            ),
            PollFd::new(
                stdout,
                if self.queue.is_empty() || self.out_broken || resting.is_some() {
                    PollFlags::empty()
                } else {
                    PollFlags::POLLOUT
                },
            ),
        ];
        let mut sources = Vec::new();
        for (&id, command) in &self.commands {
            if command.status_open {
                fds.push(PollFd::new(command.status.as_fd(), PollFlags::POLLIN));
                sources.push((id, Source::Status));
            }
            for (pipe, source) in [(&command.out, Source::Out), (&command.err, Source::Err)] {
                if command.sending[source.index()] {
                    continue;
                }
                if let Some(pipe) = pipe {
                    fds.push(PollFd::new(pipe.as_fd(), PollFlags::POLLIN));
                    sources.push((id, source));
                }
            }
        }
        // While closing, wake now and then to check the bound even if nothing happens; while resting, when it ends.
        let bound = (!reading).then_some(Duration::from_millis(100));
        let timeout = resting.into_iter().chain(bound).min();
        let none = Events {
            stdin: false,
            writable: false,
            signalled: false,
            ready: Vec::new(),
        };
        if ppoll(&mut fds, timeout.map(TimeSpec::from_duration), None).is_err() {
            return none;
        }
        let is = |fd: &PollFd| fd.any().unwrap_or(false);
        Events {
            signalled: is(&fds[0]),
            stdin: is(&fds[1]),
            writable: is(&fds[2]),
            ready: sources
                .into_iter()
                .zip(&fds[3..])
                .filter(|(_, fd)| is(fd))
                .map(|(source, _)| source)
                .collect(),
        }
    }

    /// Reads and acts on what stdin holds; false once it ended or carried a corrupt frame.
    fn read_stdin(&mut self, sfd: &nix::sys::signalfd::SignalFd) -> bool {
        let mut buf = vec![0u8; CHUNK];
        loop {
            // SAFETY: fd 0 stays open for the life of the process.
            match nix::unistd::read(unsafe { BorrowedFd::borrow_raw(0) }, &mut buf) {
                Ok(0) => return false,
                Ok(n) => self.inbound.extend_from_slice(&buf[..n]),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => break,
                Err(_) => return false,
            }
        }
        let frames = match frame::split(&mut self.inbound) {
            Ok(frames) => frames,
            Err(e) => {
                eprintln!("shellring-runner --stdio: {e}");
                return false;
            }
        };
        for Frame { kind, id, payload } in frames {
            match kind {
                frame::START => self.start(id, &payload, sfd),
                frame::SIGNAL => self.signal(id, &payload),
                frame::RELEASE => {
                    if let Some(command) = self.commands.get(&id) {
                        // Only our half: the runner sees its lifeline end, and our read side still sees it exit.
                        let _ = shutdown(command.status.as_raw_fd(), Shutdown::Write);
                        let _ = kill(command.runner, Signal::SIGCONT);
                    }
                }
                frame::LOOK => {
                    if let Some(runner) = self.commands.get(&id).map(|command| command.runner) {
                        self.push(frame::encode(
                            frame::LOOK,
                            id,
                            &stdio_look::snapshot(runner),
                        ));
                    }
                }
                frame::DRAINED => {
                    if let Some(command) = self.commands.get_mut(&id) {
                        command.out = None;
                        command.err = None;
                    }
                    self.settle(id);
                }
                _ => {}
            }
        }
        true
    }

    fn start(&mut self, id: u32, body: &[u8], sfd: &nix::sys::signalfd::SignalFd) {
        let mut request = match request::parse(body) {
            Ok(request) => request,
            Err(e) => return self.refuse(id, &RunnerError::Request(e).line()),
        };
        stdio_policy::complete(&mut request.plan, &mut request.env, self.tmp.as_ref());
        let made = (|| -> nix::Result<_> {
            let (status, theirs) = socketpair(
                AddressFamily::Unix,
                SockType::Stream,
                None,
                SockFlag::SOCK_CLOEXEC,
            )?;
            let (out_read, out_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
            let (err_read, err_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
            Ok((status, theirs, out_read, out_write, err_read, err_write))
        })();
        let (status, theirs, out_read, out_write, err_read, err_write) = match made {
            Ok(made) => made,
            Err(e) => {
                let failed = stage::Failed::new(stage::PIPE, e as i32);
                return self.refuse(id, &RunnerError::Setup(failed.detail()).line());
            }
        };
        // The command's ends block as any pipe would; only ours are non-blocking. A larger pipe (where the limit
        // allows) lets one read take a whole chunk.
        for end in [&out_write, &err_write] {
            let _ = fcntl(end, FcntlArg::F_SETFL(OFlag::empty()));
            let _ = fcntl(end, FcntlArg::F_SETPIPE_SZ(CHUNK as i32));
        }
        // SAFETY: this process is single-threaded, so the child may allocate and take locks freely.
        match unsafe { fork() } {
            Ok(ForkResult::Child) => {
                // No descriptor of the server may outlive it in a runner: another command's status socket held here
                // would keep that command's lifeline from ever ending.
                for command in self.commands.values() {
                    for fd in [
                        Some(&command.status),
                        command.out.as_deref(),
                        command.err.as_deref(),
                    ]
                    .into_iter()
                    .flatten()
                    {
                        let _ = nix::unistd::close(fd.as_raw_fd());
                    }
                }
                // A frame still under way holds a pipe its command already let go (drained).
                for out in &self.queue {
                    if let Out::Pipe(frame) = out {
                        let _ = nix::unistd::close(frame.pipe().as_raw_fd());
                    }
                }
                for fd in [
                    status.as_raw_fd(),
                    out_read.as_raw_fd(),
                    err_read.as_raw_fd(),
                    sfd.as_fd().as_raw_fd(),
                ] {
                    let _ = nix::unistd::close(fd);
                }
                set_dumpable(true);
                let code = run_request(
                    &Status::new(theirs),
                    Some((out_write, err_write)),
                    request,
                    false,
                    Parent::Server,
                );
                // SAFETY: ends this child at once, with no unwinding into the server's loop.
                unsafe { libc::_exit(code) };
            }
            Ok(ForkResult::Parent { child }) => {
                self.reaper.runners.insert(child);
                let _ = fcntl(&status, FcntlArg::F_SETFL(OFlag::O_NONBLOCK));
                let command = Command {
                    runner: child,
                    status,
                    status_open: true,
                    line: Vec::new(),
                    out: Some(Rc::new(out_read)),
                    err: Some(Rc::new(err_read)),
                    sending: [false; 2],
                    group: None,
                    pending: Vec::new(),
                    condemned: false,
                    ended: false,
                    over_sent: false,
                };
                self.commands.insert(id, command);
            }
            Err(e) => {
                let failed = stage::Failed::new(stage::FORK, e as i32);
                self.refuse(id, &RunnerError::Setup(failed.detail()).line());
            }
        }
    }

    /// A command that could not be forked: one status line, then its end.
    fn refuse(&mut self, id: u32, line: &str) {
        self.push(frame::encode(frame::STATUS, id, line.as_bytes()));
        self.push(frame::encode(frame::OUTPUT_OVER, id, b"0"));
        self.push(frame::encode(frame::GONE, id, b""));
    }

    fn signal(&mut self, id: u32, payload: &[u8]) {
        let Some(command) = self.commands.get_mut(&id) else {
            return;
        };
        let number = std::str::from_utf8(payload)
            .ok()
            .and_then(|n| n.parse::<i32>().ok());
        let Some(signal) = number.and_then(|n| Signal::try_from(n).ok()) else {
            return;
        };
        command.condemned = true;
        match command.group {
            Some(group) => deliver(group, command.runner, signal),
            None => {
                command.pending.push(signal);
                // A command may have stopped its runner before it could report the start.
                let _ = kill(command.runner, Signal::SIGCONT);
            }
        }
    }

    fn read_command(&mut self, id: u32, source: Source) {
        let Some(command) = self.commands.get_mut(&id) else {
            return;
        };
        let (pipe, kind) = match source {
            Source::Status => return self.read_status(id),
            Source::Out => (&command.out, frame::STDOUT),
            Source::Err => (&command.err, frame::STDERR),
        };
        let Some(pipe) = pipe.clone() else { return };
        if self.out_broken {
            return self.discard(id, source, &pipe);
        }
        command.sending[source.index()] = true;
        self.queue
            .push_back(Out::Pipe(PipeFrame::new(kind, id, pipe)));
    }

    /// The stream failed: what the pipe holds goes nowhere, but it is still read, so the command is never held up.
    fn discard(&mut self, id: u32, source: Source, pipe: &OwnedFd) {
        let mut buf = [0u8; DISCARD];
        match nix::unistd::read(pipe, &mut buf) {
            Ok(0) | Err(Errno::EBADF | Errno::EIO) => self.pipe_ended(id, source.index()),
            _ => {}
        }
    }

    /// A command's pipe reached end-of-file: it is closed, and the command's output may be over.
    fn pipe_ended(&mut self, id: u32, index: usize) {
        if let Some(command) = self.commands.get_mut(&id) {
            if index == 0 {
                command.out = None;
            } else {
                command.err = None;
            }
        }
        self.settle(id);
    }

    fn read_status(&mut self, id: u32) {
        let Some(command) = self.commands.get_mut(&id) else {
            return;
        };
        let mut buf = [0u8; 512];
        let mut closed = false;
        loop {
            match nix::unistd::read(&command.status, &mut buf) {
                Ok(0) => {
                    closed = true;
                    break;
                }
                Ok(n) => command.line.extend_from_slice(&buf[..n]),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => break,
                Err(_) => {
                    closed = true;
                    break;
                }
            }
        }
        let mut lines = Vec::new();
        while let Some(end) = command.line.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = command.line.drain(..=end).collect();
            lines.push(line[..line.len() - 1].to_vec());
        }
        for line in &lines {
            let text = String::from_utf8_lossy(line);
            if let Some(pid) = text
                .strip_prefix("started ")
                .and_then(|rest| rest.split(' ').next())
                .and_then(|p| p.parse().ok())
            {
                let group = Pid::from_raw(pid);
                command.group = Some(group);
                for signal in command.pending.drain(..) {
                    deliver(group, command.runner, signal);
                }
            }
            if text.starts_with("exit ")
                || text.starts_with("signal ")
                || text.starts_with("error ")
                || text.starts_with("workdir ")
            {
                command.ended = true;
            }
        }
        if closed {
            command.status_open = false;
        }
        for line in lines {
            self.push(frame::encode(frame::STATUS, id, &line));
        }
        self.settle(id);
    }

    /// Sends the end of the output once bash has ended (or its runner is gone) and both pipes are closed; then the
    /// end of the command once its runner has exited.
    fn settle(&mut self, id: u32) {
        let Some(command) = self.commands.get_mut(&id) else {
            return;
        };
        let output_done = command.out.is_none() && command.err.is_none();
        if !command.over_sent && output_done && (command.ended || !command.status_open) {
            command.over_sent = true;
            let left = if command.status_open {
                left_running(command)
            } else {
                0
            };
            self.push(frame::encode(
                frame::OUTPUT_OVER,
                id,
                left.to_string().as_bytes(),
            ));
        }
        let Some(command) = self.commands.get(&id) else {
            return;
        };
        if !command.status_open && !command.over_sent {
            // The runner is gone without bash's status (killed): its pipes end soon; forward them first.
            return;
        }
        if !command.status_open && command.over_sent {
            self.commands.remove(&id);
            self.push(frame::encode(frame::GONE, id, b""));
        }
    }

    /// Queues a frame; it leaves with the next `write_stdout`.
    fn push(&mut self, bytes: Vec<u8>) {
        if !self.out_broken {
            self.queue.push_back(Out::Bytes(bytes));
        }
    }

    /// Writes frames, in order, until stdout is full or the queue is empty.
    fn write_stdout(&mut self) {
        // SAFETY: fd 1 stays open for the life of the process.
        let stdout = unsafe { BorrowedFd::borrow_raw(1) };
        while let Some(front) = self.queue.front_mut() {
            match front {
                Out::Bytes(bytes) => {
                    match nix::unistd::write(stdout, &bytes[self.written..]) {
                        Ok(n) => self.written += n,
                        Err(Errno::EINTR) => continue,
                        Err(Errno::EAGAIN) => return,
                        Err(_) => return self.break_out(),
                    }
                    if self.written == bytes.len() {
                        self.queue.pop_front();
                        self.written = 0;
                    }
                }
                Out::Pipe(pipe_frame) => {
                    let (id, kind) = pipe_frame.of();
                    let index = usize::from(kind == frame::STDERR);
                    let current = self.commands.get(&id).is_some_and(|command| {
                        let pipe = if index == 0 {
                            &command.out
                        } else {
                            &command.err
                        };
                        pipe.as_ref()
                            .is_some_and(|pipe| Rc::ptr_eq(pipe, pipe_frame.pipe()))
                    });
                    // A pipe drained meanwhile sends nothing more, unless its frame was begun: that one completes.
                    let step = if current || pipe_frame.begun() {
                        pipe_frame.advance(stdout)
                    } else {
                        Step::Empty
                    };
                    match step {
                        Step::Blocked => return,
                        Step::Broken => return self.break_out(),
                        Step::Sent | Step::Empty | Step::Ended => {
                            self.queue.pop_front();
                            if let Some(command) = self.commands.get_mut(&id) {
                                command.sending[index] = false;
                            }
                            if step == Step::Ended && current {
                                self.pipe_ended(id, index);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The far side is gone: nothing more is sent, and commands' output is read and dropped from now on.
    fn break_out(&mut self) {
        self.out_broken = true;
        self.queue.clear();
        self.written = 0;
        for command in self.commands.values_mut() {
            command.sending = [false; 2];
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

/// The signal to bash's group, and SIGCONT with it: a stopped group or runner would never act on a TERM.
fn deliver(group: Pid, runner: Pid, signal: Signal) {
    let _ = killpg(group, signal);
    let _ = killpg(group, Signal::SIGCONT);
    let _ = kill(runner, Signal::SIGCONT);
}

/// Processes the command left running under its runner; a signalled group's are on their way out, and so is a
/// bubblewrap sandbox's own (bwrap, and its pid namespace, which ends with its init), as the local count has it.
fn left_running(command: &Command) -> usize {
    let namespace = |pid: Pid| std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok();
    let home = namespace(command.runner);
    let sandbox_own = |pid: Pid| {
        namespace(pid) != home
            || std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|name| name.trim_end() == "bwrap")
    };
    let group = |pid: Pid| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(2)?
            .parse::<i32>()
            .ok()
    };
    proc_tree::descendants(command.runner)
        .into_iter()
        .filter(|&pid| !sandbox_own(pid))
        .filter(|&pid| {
            !(command.condemned
                && command
                    .group
                    .is_some_and(|g| group(pid) == Some(g.as_raw())))
        })
        .count()
}
