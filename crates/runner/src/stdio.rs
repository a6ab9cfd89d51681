//! `--stdio`: a runner that serves over one byte stream (an SSH channel, say). Framed requests arrive on stdin and
//! framed events leave on stdout (`stdio_frame`); each command is forked and supervised exactly as the fork server's
//! (`serve::run_request`: subreaper, new session, confinement, limits, the request's environment only), with its
//! status socket, stdout and stderr read here and forwarded tagged with its id. A confined command's plan is first
//! completed with this host's paths (`stdio_policy`): the server that sent it knows only the session's part.
//!
//! Flow control: each command may have at most `QUEUE_LIMIT` bytes waiting to leave; past that its pipes are not
//! read, so a slow reader on the far side fills the pipes and blocks the command's writes. Memory stays bounded by
//! commands x `QUEUE_LIMIT`. When stdin ends (the stream closed), on SIGTERM/SIGINT/SIGHUP or when the parent dies,
//! every command's lifeline is dropped (its runner kills its whole tree) and the server exits once they are gone.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::socket::{shutdown, socketpair, AddressFamily, Shutdown, SockFlag, SockType};
use nix::unistd::{fork, ForkResult, Pid};

use crate::error::RunnerError;
use crate::serve::{become_server, run_request, set_dumpable, Server};
use crate::status::Status;
use crate::stdio_frame::{self as frame, Frame};
use crate::stdio_look;
use crate::stdio_policy::{self, StreamTmp};
use crate::supervise::Parent;
use crate::{proc_tree, request, signals};

/// Bytes one command may have queued for stdout before its pipes stop being read.
const QUEUE_LIMIT: usize = 256 << 10;
/// One read from a command's pipe, and the pipes' capacity: fewer, larger frames for a command that prints a lot.
const CHUNK: usize = 256 << 10;
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
    let mut mux = Mux {
        commands: HashMap::new(),
        queue: VecDeque::new(),
        written: 0,
        inbound: Vec::new(),
        reaper: Server::new(false),
        out_broken: false,
        tmp: StreamTmp::make(),
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
        if events.stdout {
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
    out: Option<OwnedFd>,
    err: Option<OwnedFd>,
    /// Bytes of this command's frames waiting to leave.
    queued: usize,
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
    stdout: bool,
    signalled: bool,
    ready: Vec<(u32, Source)>,
}

struct Mux {
    commands: HashMap<u32, Command>,
    /// Frames waiting for stdout, each with the id whose budget it counts against.
    queue: VecDeque<(Option<u32>, Vec<u8>)>,
    /// Bytes of the front frame already written.
    written: usize,
    inbound: Vec<u8>,
    reaper: Server,
    /// stdout failed: the far side is gone; frames are dropped from now on.
    out_broken: bool,
    /// The session's temporary directory on this host, for its confined commands.
    tmp: Option<StreamTmp>,
}

impl Mux {
    fn wait(&self, sfd: &nix::sys::signalfd::SignalFd, reading: bool) -> Events {
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
                if self.queue.is_empty() || self.out_broken {
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
            if command.queued >= QUEUE_LIMIT {
                continue;
            }
            for (pipe, source) in [(&command.out, Source::Out), (&command.err, Source::Err)] {
                if let Some(pipe) = pipe {
                    fds.push(PollFd::new(pipe.as_fd(), PollFlags::POLLIN));
                    sources.push((id, source));
                }
            }
        }
        // While closing, wake now and then to check the bound even if nothing happens.
        let timeout = if reading {
            PollTimeout::NONE
        } else {
            PollTimeout::from(100u8)
        };
        let none = Events {
            stdin: false,
            stdout: false,
            signalled: false,
            ready: Vec::new(),
        };
        match poll(&mut fds, timeout) {
            Ok(_) => {}
            Err(_) => return none,
        }
        let is = |fd: &PollFd| fd.any().unwrap_or(false);
        Events {
            signalled: is(&fds[0]),
            stdin: is(&fds[1]),
            stdout: is(&fds[2]),
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
                        self.push(
                            None,
                            frame::encode(frame::LOOK, id, &stdio_look::snapshot(runner)),
                        );
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
        let Ok((status, theirs, out_read, out_write, err_read, err_write)) = made else {
            let why = made.err().map(|e| e.to_string()).unwrap_or_default();
            return self.refuse(id, &RunnerError::Setup(format!("spawn: {why}")).line());
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
                        command.out.as_ref(),
                        command.err.as_ref(),
                    ]
                    .into_iter()
                    .flatten()
                    {
                        let _ = nix::unistd::close(fd.as_raw_fd());
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
                    out: Some(out_read),
                    err: Some(err_read),
                    queued: 0,
                    group: None,
                    pending: Vec::new(),
                    condemned: false,
                    ended: false,
                    over_sent: false,
                };
                self.commands.insert(id, command);
            }
            Err(e) => self.refuse(id, &RunnerError::Setup(format!("spawn: fork: {e}")).line()),
        }
    }

    /// A command that could not be forked: one status line, then its end.
    fn refuse(&mut self, id: u32, line: &str) {
        self.push(None, frame::encode(frame::STATUS, id, line.as_bytes()));
        self.push(None, frame::encode(frame::OUTPUT_OVER, id, b"0"));
        self.push(None, frame::encode(frame::GONE, id, b""));
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
        match source {
            Source::Status => self.read_status(id),
            Source::Out | Source::Err => {
                let (pipe, kind) = match source {
                    Source::Out => (&mut command.out, frame::STDOUT),
                    _ => (&mut command.err, frame::STDERR),
                };
                let Some(fd) = pipe.as_ref() else { return };
                let mut bytes = frame::header(kind, id, CHUNK);
                bytes.resize(frame::HEADER + CHUNK, 0);
                match nix::unistd::read(fd, &mut bytes[frame::HEADER..]) {
                    Ok(0) | Err(Errno::EBADF | Errno::EIO) => {
                        *pipe = None;
                        self.settle(id);
                    }
                    Ok(n) => {
                        bytes.truncate(frame::HEADER + n);
                        bytes[..4].copy_from_slice(&((n + 5) as u32).to_le_bytes());
                        self.push(Some(id), bytes);
                    }
                    Err(_) => {}
                }
            }
        }
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
            self.push(None, frame::encode(frame::STATUS, id, &line));
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
            self.push(
                None,
                frame::encode(frame::OUTPUT_OVER, id, left.to_string().as_bytes()),
            );
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
            self.push(None, frame::encode(frame::GONE, id, b""));
        }
    }

    fn push(&mut self, owner: Option<u32>, bytes: Vec<u8>) {
        if self.out_broken {
            return;
        }
        if let Some(command) = owner.and_then(|id| self.commands.get_mut(&id)) {
            command.queued += bytes.len();
        }
        self.queue.push_back((owner, bytes));
        self.write_stdout();
    }

    fn write_stdout(&mut self) {
        // SAFETY: fd 1 stays open for the life of the process.
        let stdout = unsafe { BorrowedFd::borrow_raw(1) };
        while let Some((owner, bytes)) = self.queue.front() {
            match nix::unistd::write(stdout, &bytes[self.written..]) {
                Ok(n) => self.written += n,
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => return,
                Err(_) => {
                    self.out_broken = true;
                    self.queue.clear();
                    return;
                }
            }
            if self.written == bytes.len() {
                let (owner, length) = (*owner, bytes.len());
                if let Some(command) = owner.and_then(|id| self.commands.get_mut(&id)) {
                    command.queued -= length;
                }
                self.queue.pop_front();
                self.written = 0;
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
