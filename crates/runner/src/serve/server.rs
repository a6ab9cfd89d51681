//! The fork server (`--serve`): one long-lived, single-threaded runner per supervisor worker. For each command the
//! worker sends three descriptors (status socket, stdout, stderr) over the server's socket; the server forks —
//! without exec, which is safe in a single-threaded process — a child that reads the request from its status
//! socket and supervises the command exactly as a runner started on its own would. No command pays for a fork of
//! the Node process or an exec of the runner.
//!
//! The server is a subreaper: what a runner left when it was killed (processes that escaped its group with setsid)
//! comes to the server, which ends it. The server ends at end-of-file on its socket, when its parent thread dies, or
//! on SIGTERM/SIGINT/SIGHUP; the runners it forked live on until their own lifelines end them.

use std::collections::HashSet;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags};
use nix::sys::signal::{kill, Signal};
use nix::sys::signalfd::SignalFd;
use nix::sys::socket::{recvmsg, ControlMessageOwned, MsgFlags};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::{fork, ForkResult, Pid};

use super::spawners::Spawners;
use crate::confine::{host_pid, limits};
use crate::life::command::run_read;
use crate::life::status::Status;
use crate::life::{proc_tree, signals, supervise, title};
use crate::wire::route::{self, Route};
use crate::wire::status::Status as Line;

/// Serves until the worker goes away (every worker, for a session sandbox's server: `inside`, whose runners run in
/// the sandbox it stands in and which says `ready` on stdout once it serves). Returns the process exit code.
pub fn serve(socket: OwnedFd, inside: bool) -> u8 {
    // A group of our own: a terminal's Ctrl-C reaches the host, which then closes its commands in order.
    let _ = nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
    let Some(sfd) = become_server("--serve") else {
        return 1;
    };
    if inside {
        announce_ready();
    }
    let mut server = Server::new(inside);
    server.serve_requests(&socket, &sfd, false);
    server.end_strays();
    0
}

/// `ready` on stdout, which is then let go: the host waits for this line before it sends a session's first command.
fn announce_ready() {
    // SAFETY: write, open, dup2 and close on descriptors of this process.
    unsafe {
        libc::write(1, b"ready\n".as_ptr().cast(), 6);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 1);
            libc::close(null);
        }
    }
}

/// What every server process is: the subreaper of what it forks, ended with its parent, closed to the commands it
/// starts (they run as the same user and must not read its memory or ptrace it), and reading its signals from a
/// signalfd. None (after saying why on stderr) when the signalfd cannot be made.
pub fn become_server(mode: &str) -> Option<nix::sys::signalfd::SignalFd> {
    let _ = nix::sys::prctl::set_child_subreaper(true);
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
    set_dumpable(false);
    title::prepare();
    match signals::take() {
        Ok(sfd) => Some(sfd),
        Err(e) => {
            eprintln!("shellring-runner {mode}: signalfd: {e}");
            None
        }
    }
}

pub fn set_dumpable(on: bool) {
    // SAFETY: PR_SET_DUMPABLE changes a flag of this process and touches no memory of ours.
    let _ = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, libc::c_ulong::from(on), 0, 0, 0) };
}

/// The runners a server forked, and the strays that came to it (shared with the `--stdio` server).
pub struct Server {
    /// The runners this server forked and has not reaped yet.
    pub runners: HashSet<Pid>,
    me: Pid,
    /// A session sandbox's server: every runner runs inside it.
    inside: bool,
    /// The sessions' spawners this server started (none in a spawner, nor in a session sandbox's server).
    spawners: Spawners,
}

impl Server {
    pub fn new(inside: bool) -> Server {
        Server {
            runners: HashSet::new(),
            me: nix::unistd::getpid(),
            inside,
            spawners: Spawners::default(),
        }
    }

    /// Forks a runner per request on `socket` until the socket ends or a signal asks to stop; `linger` (a session's
    /// spawner): after the socket ended, until the runners forked here have ended too, so none outlives the process
    /// whose children they are (the server would take them for strays).
    pub fn serve_requests(&mut self, socket: &OwnedFd, sfd: &SignalFd, linger: bool) {
        let mut open = true;
        while open || (linger && !self.runners.is_empty()) {
            let mut fds = [
                PollFd::new(sfd.as_fd(), PollFlags::POLLIN),
                PollFd::new(socket.as_fd(), PollFlags::POLLIN),
            ];
            let polled = if open { &mut fds[..] } else { &mut fds[..1] };
            if let Err(e) = poll(polled, self.spawners.timeout()) {
                if e == Errno::EINTR {
                    continue;
                }
                break;
            }
            self.spawners.expire();
            let signalled = fds[0].any().unwrap_or(false);
            let requested = open && fds[1].any().unwrap_or(false);
            if signalled {
                let mut stop = false;
                while let Some(signal) = signals::next(sfd) {
                    stop |= signal != libc::SIGCHLD;
                }
                self.reap();
                if stop {
                    break;
                }
            }
            if requested && !self.accept(socket, sfd) {
                open = false;
            }
        }
    }

    /// Takes every request waiting on the socket; false once the worker closed its end.
    fn accept(&mut self, socket: &OwnedFd, sfd: &SignalFd) -> bool {
        loop {
            let mut payload = [0u8; 4096];
            let mut iov = [std::io::IoSliceMut::new(&mut payload)];
            let mut space = nix::cmsg_space!([RawFd; 3]);
            let flags = MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_CMSG_CLOEXEC;
            let (bytes, fds, truncated, long) =
                match recvmsg::<()>(socket.as_raw_fd(), &mut iov, Some(&mut space), flags) {
                    Ok(message) => {
                        let mut fds = Vec::new();
                        for cmsg in message.cmsgs().into_iter().flatten() {
                            if let ControlMessageOwned::ScmRights(received) = cmsg {
                                // SAFETY: the kernel just installed these descriptors in this process for us alone.
                                fds.extend(
                                    received
                                        .into_iter()
                                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                                );
                            }
                        }
                        (
                            message.bytes,
                            fds,
                            message.flags.contains(MsgFlags::MSG_CTRUNC),
                            message.flags.contains(MsgFlags::MSG_TRUNC),
                        )
                    }
                    Err(Errno::EINTR) => continue,
                    Err(Errno::EAGAIN) => return true,
                    Err(_) => return false,
                };
            if bytes == 0 && fds.is_empty() {
                return false;
            }
            // A malformed request is dropped with its descriptors: the worker sees its status socket end at once.
            let Ok([status, out, err]) = <[OwnedFd; 3]>::try_from(fds) else {
                continue;
            };
            if truncated {
                continue;
            }
            // A command of a session with cgroups goes to that session's spawner, whose runners are born in them.
            let fds = [status, out, err];
            if let (false, [route::MARK, route @ ..]) = (long, &payload[..bytes]) {
                let server_fds = [socket.as_raw_fd(), sfd.as_fd().as_raw_fd()];
                if self
                    .spawners
                    .hand(route, &fds, server_fds, &mut self.runners, spawner)
                {
                    continue;
                }
            }
            let [status, out, err] = fds;
            // SAFETY: this process is single-threaded, so the child may allocate and take locks freely.
            match unsafe { fork() } {
                Ok(ForkResult::Child) => {
                    // The server's own descriptors must not outlive it in a runner: a stray copy of the socket would
                    // keep the worker from ever seeing the server gone.
                    let _ = nix::unistd::close(socket.as_raw_fd());
                    let _ = nix::unistd::close(sfd.as_fd().as_raw_fd());
                    self.spawners.close_in_child();
                    // A non-dumpable process's /proc files belong to root, so a runner that makes a user namespace
                    // could not write its own uid_map. It holds nothing of the server's: the server's environment is
                    // the scrubbed one the worker gave it, and each request carries only its own command's. Inside a
                    // session sandbox no runner makes a namespace, and its session's commands share its pid namespace:
                    // it stays closed to them.
                    set_dumpable(!self.inside);
                    let code = runner(status, out, err, self.inside);
                    // SAFETY: ends this child at once, with no unwinding into the server's loop.
                    unsafe { libc::_exit(code) };
                }
                Ok(ForkResult::Parent { child }) => {
                    self.runners.insert(child);
                }
                // The descriptors drop here: the worker's status socket ends, so the command fails to start.
                Err(_) => {}
            }
        }
    }

    /// Reaps every ended child; then ends what a dead runner left behind.
    pub fn reap(&mut self) {
        let mut runner_ended = false;
        loop {
            match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::Exited(pid, _) | WaitStatus::Signaled(pid, _, _)) => {
                    runner_ended |= self.runners.remove(&pid);
                    if self.spawners.ended(pid) {
                        self.adopt();
                    }
                }
                Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => break,
                Ok(_) | Err(Errno::EINTR) => {}
                Err(_) => break,
            }
        }
        if runner_ended {
            self.end_strays();
        }
    }

    /// Takes the runners of a spawner that died (a command may kill it) as this server's own: the kernel made them
    /// our children before it told us of the spawner's end, and they live on as any runner whose server died does.
    fn adopt(&mut self) {
        self.runners.extend(proc_tree::children_of(self.me));
    }

    /// Kills every child that is not one of our runners (and its descendants): they came to us when the runner
    /// that supervised them died without ending them. Runners are told apart by pid alone, so a server with many
    /// live runners reads one file here, not one per runner; a stray that is already a zombie is reaped below.
    pub fn end_strays(&mut self) {
        for _ in 0..100 {
            let strays: Vec<Pid> = proc_tree::children_of(self.me)
                .into_iter()
                .filter(|pid| !self.runners.contains(pid))
                .collect();
            if strays.is_empty() {
                return;
            }
            for stray in strays {
                for pid in proc_tree::descendants(stray) {
                    let _ = kill(pid, Signal::SIGKILL);
                }
                let _ = kill(stray, Signal::SIGKILL);
            }
            while let Ok(WaitStatus::Exited(pid, _) | WaitStatus::Signaled(pid, _, _)) =
                waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG))
            {
                self.runners.remove(&pid);
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// The forked child: reads its request, takes stdin/stdout/stderr, and supervises the command.
fn runner(status: OwnedFd, out: OwnedFd, err: OwnedFd, inside: bool) -> i32 {
    let status = Status::new(status);
    // First, so the worker can wake or kill this runner even before the command starts.
    status.line(&Line::Runner(host_pid::own()).line());
    run_read(&status, Some((out, err)), inside, supervise::Parent::Server)
}

/// A session's spawner: joins the route's cgroups (a failure leaves each runner to join, and report it, itself), then
/// forks a runner per request until the server lets it go, and exits once those runners have ended.
fn spawner(socket: OwnedFd, server: Pid, route: Route) -> i32 {
    let _ = nix::sys::prctl::set_child_subreaper(true);
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
    if nix::unistd::getppid() != server {
        return 1;
    }
    let Ok(sfd) = signals::take() else { return 1 };
    if let Ok(prepared) = limits::prepare(&route.cgroups, &route.limits, None) {
        if prepared.join() == 0 {
            limits::joined_as_spawner(route.cgroups, route.limits);
        }
    }
    let mut spawner = Server::new(false);
    spawner.serve_requests(&socket, &sfd, true);
    spawner.end_strays();
    0
}
