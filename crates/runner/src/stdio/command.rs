//! One command of `--stdio`: its runner forked as the fork server's are (`life::command::run_request`), the runner's
//! status socket (its lines read here, the supervisor's control lines written to it), and the command's stdout and
//! stderr pipes, which the server frames. The runner keeps the command's terms itself (`life::course`): this server
//! only carries lines both ways and the output.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::rc::Rc;

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::sys::signal::{kill, Signal};
use nix::sys::socket::{send, socketpair, AddressFamily, MsgFlags, SockFlag, SockType};
use nix::unistd::{fork, ForkResult, Pid};

use crate::failure::{Failed, RunnerError};
use crate::life::command::run_request;
use crate::life::status::Status;
use crate::life::supervise::Parent;
use crate::serve::server::set_dumpable;
use crate::wire::request::Request;
use crate::wire::stage;
use crate::wire::status::Status as Line;

/// The command pipes' capacity (the most one frame carries: fewer, larger frames for a command that prints a lot).
pub const CHUNK: usize = 256 << 10;

/// A readable descriptor of one command.
#[derive(Clone, Copy)]
pub enum Source {
    Status,
    Out,
    Err,
}

impl Source {
    /// Which of the two output pipes (stdout 0, stderr 1).
    pub fn index(self) -> usize {
        match self {
            Source::Err => 1,
            _ => 0,
        }
    }
}

pub struct Command {
    pub runner: Pid,
    pub status: OwnedFd,
    pub status_open: bool,
    /// A partial status line.
    line: Vec<u8>,
    /// stdout's and stderr's pipe, until each reached end-of-file or was let go.
    pub pipes: [Option<Rc<OwnedFd>>; 2],
    /// Each pipe has a frame in the queue: it is not polled until that frame has left.
    pub sending: [bool; 2],
    /// The runner was told its output ended.
    pub told_ended: bool,
    /// The runner's `over` line, held back until what the pipes hold has left before it.
    pub held_over: Option<Vec<u8>>,
    /// A pipe's last frame is queued: the pipe is let go once it has left.
    pub last: [bool; 2],
}

impl Command {
    /// Forks the runner of `request` (`early`: the control lines that came with it); the child first closes
    /// `foreign` (the server's own descriptors and other commands'). Errs with the status line that says why nothing
    /// was forked.
    pub fn fork(request: Request, early: Vec<u8>, foreign: &[RawFd]) -> Result<Command, String> {
        let pipes = || -> nix::Result<_> {
            let status = socketpair(
                AddressFamily::Unix,
                SockType::Stream,
                None,
                SockFlag::SOCK_CLOEXEC,
            )?;
            let out = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
            let err = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
            Ok((status, out, err))
        };
        let ((status, theirs), (out_read, out_write), (err_read, err_write)) =
            pipes().map_err(|e| failure(stage::PIPE, e))?;
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
                let ours = [
                    status.as_raw_fd(),
                    out_read.as_raw_fd(),
                    err_read.as_raw_fd(),
                ];
                for &fd in foreign.iter().chain(&ours) {
                    let _ = nix::unistd::close(fd);
                }
                set_dumpable(true);
                let status = Status::new(theirs);
                // First, as a fork server's runner says it: a runner gone before it said `started` was there.
                status.line(&Line::Runner(nix::unistd::getpid().as_raw()).line());
                let stdio = Some((out_write, err_write));
                let code = run_request(&status, stdio, request, early, false, Parent::Server);
                // SAFETY: ends this child at once, with no unwinding into the server's loop.
                unsafe { libc::_exit(code) };
            }
            Ok(ForkResult::Parent { child }) => {
                let _ = fcntl(&status, FcntlArg::F_SETFL(OFlag::O_NONBLOCK));
                Ok(Command {
                    runner: child,
                    status,
                    status_open: true,
                    line: Vec::new(),
                    pipes: [Some(Rc::new(out_read)), Some(Rc::new(err_read))],
                    sending: [false; 2],
                    told_ended: false,
                    held_over: None,
                    last: [false; 2],
                })
            }
            Err(e) => Err(failure(stage::FORK, e)),
        }
    }

    /// The descriptors this server holds for the command: no other command's runner may keep them.
    pub fn descriptors(&self) -> impl Iterator<Item = RawFd> + '_ {
        let pipes = self.pipes.iter().flatten().map(|pipe| pipe.as_raw_fd());
        std::iter::once(self.status.as_raw_fd()).chain(pipes)
    }

    /// Reads what the status socket holds; returns the whole lines (without their newline), but the runner's `over`,
    /// which is held back: once it came, what the pipes hold then goes out before it and the pipes are let go (what a
    /// descendant still writes there goes nowhere).
    pub fn read_status(&mut self) -> Vec<Vec<u8>> {
        let mut buf = [0u8; 512];
        loop {
            match nix::unistd::read(&self.status, &mut buf) {
                Ok(0) => {
                    self.status_open = false;
                    break;
                }
                Ok(n) => self.line.extend_from_slice(&buf[..n]),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => break,
                Err(_) => {
                    self.status_open = false;
                    break;
                }
            }
        }
        let mut lines = Vec::new();
        while let Some(end) = self.line.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.line.drain(..=end).collect();
            let line = line[..line.len() - 1].to_vec();
            if let Some(Line::Over(_)) = Line::parse(&String::from_utf8_lossy(&line)) {
                self.told_ended = true;
                self.held_over = Some(line);
            } else {
                lines.push(line);
            }
        }
        lines
    }

    /// Hands the runner one control line, and wakes it should its command have stopped it.
    pub fn control(&self, line: &[u8]) {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        let flags = MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_NOSIGNAL;
        // A line is far smaller than the socket's buffer, which the runner empties as it reads.
        while let Err(Errno::EINTR) = send(self.status.as_raw_fd(), &bytes, flags) {}
        let _ = kill(self.runner, Signal::SIGCONT);
    }
}

/// The status line of a step of the server's own that failed.
fn failure(token: &'static str, errno: Errno) -> String {
    RunnerError::Setup(Failed::new(token, errno as i32).detail()).line()
}
