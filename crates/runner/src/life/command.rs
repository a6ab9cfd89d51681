//! A command's request, read and applied in a freshly forked runner: its stdio taken, its working directory entered,
//! its environment set, then the command supervised to its end (`supervise`). A terminal job's stdio is a
//! pseudo-terminal the runner opens here, whose master it keeps to relay into the stdout pipe (`term`).

use std::io::Read;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

use nix::errno::Errno;

use super::status::Status;
use super::term::{pty, Term};
use super::{supervise, title};
use crate::confine::limits;
use crate::failure::{Failed, RunnerError};
use crate::wire::plan::Plan;
use crate::wire::request::{self, Request};
use crate::wire::stage;
use crate::wire::status::Status as Line;

/// Reads the request from the status socket and supervises it (`stdio`: the command's stdout and stderr, else the
/// runner's own).
pub fn run_read(
    status: &Status,
    stdio: Option<(OwnedFd, OwnedFd)>,
    inside: bool,
    parent: supervise::Parent,
) -> i32 {
    match request::read(&mut Reader(status.fd())) {
        Ok(request) => {
            // The terms come in the same write as the request: there now, before bash starts.
            let mut early = Vec::new();
            status.receive_waiting(&mut early);
            run_request(status, stdio, request, early, inside, parent)
        }
        Err(e) => {
            status.line(&RunnerError::Request(e).line());
            1
        }
    }
}

/// Supervises one parsed request in a freshly forked, single-threaded child whose status channel is `status`
/// (`early`: the control lines that came with it; `inside`: the child of a session sandbox's server).
pub fn run_request(
    status: &Status,
    stdio: Option<(OwnedFd, OwnedFd)>,
    request: Request,
    early: Vec<u8>,
    inside: bool,
    parent: supervise::Parent,
) -> i32 {
    let taken = match request.terminal {
        Some(size) => take_terminal(stdio, request.stdin.as_deref(), size).map(Some),
        None => take_stdio(stdio, request.stdin.as_deref()).map(|()| None),
    };
    let term = match taken {
        Ok(term) => term,
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(0);
            status.line(&RunnerError::Setup(Failed::new(stage::STDIO, errno).detail()).line());
            return 1;
        }
    };
    if let Err(e) = std::env::set_current_dir(&request.cwd) {
        // The command's own mistake (a missing or non-directory workdir), not the runner's: its own status word,
        // with the errno, so the host words it as it words any other system error.
        status.line(&Line::Workdir(e.raw_os_error().unwrap_or(0)).line());
        return 1;
    }
    // Single-threaded (a fresh fork of the server): changing the environment races with nothing.
    for (name, _) in std::env::vars_os() {
        std::env::remove_var(name);
    }
    for (name, value) in &request.env {
        std::env::set_var(name, value);
    }
    let mut plan = Plan {
        inside,
        terminal: term.is_some(),
        ..request.plan
    };
    // Forked by its session's spawner: born in the session's cgroups, it has none to join.
    if limits::joined(&plan.cgroups, &plan.cgroup_limits) {
        plan.cgroups.clear();
    }
    title::set(&title::of(&plan));
    match supervise::run(&plan, status, parent, early, term) {
        supervise::Ended::Ran => 0,
        supervise::Ended::NotStarted => 1,
    }
}

/// stdout and stderr onto fds 1 and 2 (when given); stdin from a memory file holding the request's bytes, else
/// /dev/null.
fn take_stdio(stdio: Option<(OwnedFd, OwnedFd)>, stdin: Option<&[u8]>) -> std::io::Result<()> {
    let input = match stdin {
        Some(bytes) => memory_file(bytes)?,
        None => rustix::fs::open(
            "/dev/null",
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )?,
    };
    let mut fds = vec![(input, 0)];
    if let Some((out, err)) = stdio {
        fds.extend([(out, 1), (err, 2)]);
    }
    onto_stdio(fds)
}

/// A new terminal of `size` as stdin (unless the request brings stdin of its own), stdout and stderr; its master and
/// the stdout pipe (the runner's own stdout without one) go to the relay. The stderr pipe is let go: a terminal has
/// one stream, so the capture's stderr ends at once.
fn take_terminal(
    stdio: Option<(OwnedFd, OwnedFd)>,
    stdin: Option<&[u8]>,
    size: crate::wire::term::Size,
) -> std::io::Result<Term> {
    let (master, slave) = pty::open(size)?;
    let out = match stdio {
        Some((out, _err)) => out,
        None => rustix::io::dup(rustix::stdio::stdout())?,
    };
    let input = match stdin {
        Some(bytes) => memory_file(bytes)?,
        None => rustix::io::dup(&slave)?,
    };
    let err = rustix::io::dup(&slave)?;
    onto_stdio(vec![(input, 0), (slave, 1), (err, 2)])?;
    Ok(Term::new(master, out, size))
}

/// A close-on-exec memory file holding `bytes`, read from its start.
fn memory_file(bytes: &[u8]) -> std::io::Result<OwnedFd> {
    use rustix::fs::{memfd_create, MemfdFlags};
    let file = memfd_create("stdin", MemfdFlags::CLOEXEC)?;
    let mut written = 0;
    while written < bytes.len() {
        written += rustix::io::write(&file, &bytes[written..])?;
    }
    rustix::fs::seek(&file, rustix::fs::SeekFrom::Start(0))?;
    Ok(file)
}

/// Each descriptor onto its standard number (the source is closed after).
fn onto_stdio(fds: Vec<(OwnedFd, i32)>) -> std::io::Result<()> {
    for (fd, target) in fds {
        // SAFETY: dup2 onto the standard descriptors of this process; the source is dropped (closed) after.
        if unsafe { libc::dup2(fd.as_raw_fd(), target) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Blocking reads from a borrowed descriptor.
struct Reader<'a>(BorrowedFd<'a>);

impl Read for Reader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match nix::unistd::read(self.0, buf) {
                Err(Errno::EINTR) => continue,
                other => return other.map_err(std::io::Error::from),
            }
        }
    }
}
