//! A session's spawner: a child of the fork server that joined its session's cgroups once and forks that session's
//! runners, which are born in them. Moving a process into a cgroup takes the kernel's cgroup-wide write lock, whose
//! price is an RCU grace period (milliseconds) whenever no other move happened just before; forked children inherit
//! their parent's cgroups for free. So a command with session cgroups costs a fork here, not a move.
//!
//! The worker names the command's cgroups and limits in the request's payload (`ROUTE`, then NUL-terminated fields:
//! the count of cgroups, the cgroups, the limits). The server hands the command's descriptors to the spawner of that
//! name, started at the session's first command; it forks the runner itself whenever the spawner cannot take them.
//! A spawner idle for `IDLE` is let go: the server closes its socket, and it exits once its runners have ended. It
//! is one of the session's processes (its cgroups count it), and ends with them when the session closes.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nix::poll::PollTimeout;
use nix::sys::signal::{kill, Signal};
use nix::sys::socket::{
    sendmsg, socketpair, AddressFamily, ControlMessage, MsgFlags, SockFlag, SockType,
};
use nix::unistd::{fork, ForkResult, Pid};

use crate::{limits, serve, signals};

/// The first byte of a request payload that names its session's cgroups.
pub const ROUTE: u8 = 2;
/// How long a spawner may go without a command before the server lets it go.
const IDLE: Duration = Duration::from_secs(30);

/// The cgroups and limits this process joined as a spawner: its runners are in them already.
static JOINED: OnceLock<(Vec<String>, Vec<String>)> = OnceLock::new();

/// True in a runner whose spawner joined exactly `cgroups` with `limits`: it has nothing to join itself.
pub fn joined(cgroups: &[String], limits: &[String]) -> bool {
    !cgroups.is_empty()
        && JOINED
            .get()
            .is_some_and(|(c, l)| c == cgroups && l == limits)
}

/// The cgroups and limits a route payload names (after `ROUTE`), or None when it is malformed.
fn decode(route: &[u8]) -> Option<(Vec<String>, Vec<String>)> {
    let text = std::str::from_utf8(route).ok()?;
    let mut fields: Vec<String> = text.split('\0').map(String::from).collect();
    // Every field is NUL-terminated: the split leaves one empty string after the last.
    if !fields.pop()?.is_empty() {
        return None;
    }
    let count: usize = fields.first()?.parse().ok()?;
    let limits = fields.split_off(1 + count.min(fields.len() - 1));
    fields.remove(0);
    (fields.len() == count && count > 0).then_some((fields, limits))
}

struct Spawner {
    pid: Pid,
    /// The server's end of the spawner's request socket.
    socket: OwnedFd,
    used: Instant,
}

/// The live spawners of one fork server, by route.
#[derive(Default)]
pub(crate) struct Spawners {
    by_route: HashMap<Vec<u8>, Spawner>,
}

impl Spawners {
    /// Hands one command's descriptors to the spawner of `route` (after `ROUTE`), starting it if need be; false when
    /// that cannot be done now (the caller forks the runner itself). `server_fds` are the server's own descriptors,
    /// which no spawner may keep; a started spawner joins `runners`, so the server never takes it for a stray.
    pub(crate) fn hand(
        &mut self,
        route: &[u8],
        fds: &[OwnedFd; 3],
        server_fds: [RawFd; 2],
        runners: &mut std::collections::HashSet<Pid>,
    ) -> bool {
        if !self.by_route.contains_key(route) {
            // Its request's own descriptors stay out of it too: a copy there would hold the command's pipes and
            // status socket open for as long as the spawner lives.
            let open: Vec<RawFd> = server_fds
                .into_iter()
                .chain(fds.iter().map(|fd| fd.as_raw_fd()))
                .collect();
            let Some(spawner) = self.start(route, &open) else {
                return false;
            };
            runners.insert(spawner.pid);
            self.by_route.insert(route.to_vec(), spawner);
        }
        let spawner = self.by_route.get_mut(route).expect("present");
        // A command of the session may have stopped its spawner: its request would wait for ever.
        let _ = kill(spawner.pid, Signal::SIGCONT);
        let raw = fds.each_ref().map(|fd| fd.as_raw_fd());
        let iov = [std::io::IoSlice::new(&[1])];
        let cmsg = [ControlMessage::ScmRights(&raw)];
        let flags = MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_NOSIGNAL;
        match sendmsg::<()>(spawner.socket.as_raw_fd(), &iov, &cmsg, flags, None) {
            Ok(_) => {
                spawner.used = Instant::now();
                true
            }
            // Its queue is full (stopped or wedged), or it is gone (its session's cgroups were cleared, say: the
            // server forgets it once it reaps it, and adopts its runners): this command goes around it.
            Err(_) => false,
        }
    }

    /// Until the next spawner falls idle.
    pub(crate) fn timeout(&self) -> PollTimeout {
        let Some(next) = self.by_route.values().map(|s| s.used + IDLE).min() else {
            return PollTimeout::NONE;
        };
        let ms = next.saturating_duration_since(Instant::now()).as_millis();
        PollTimeout::from(u16::try_from(ms + 1).unwrap_or(u16::MAX))
    }

    /// Lets go of the idle spawners: each exits once its runners have ended.
    pub(crate) fn expire(&mut self) {
        let now = Instant::now();
        self.by_route.retain(|_, s| now < s.used + IDLE);
    }

    /// Forgets a spawner that ended; true when `pid` was one.
    pub(crate) fn ended(&mut self, pid: Pid) -> bool {
        let before = self.by_route.len();
        self.by_route.retain(|_, s| s.pid != pid);
        self.by_route.len() != before
    }

    /// Closes, in a child just forked from the server, every spawner's socket: a copy held elsewhere would keep a
    /// spawner from seeing the server let it go.
    pub(crate) fn close_in_child(&self) {
        for spawner in self.by_route.values() {
            let _ = nix::unistd::close(spawner.socket.as_raw_fd());
        }
    }

    /// Forks the spawner of `route`, which closes `open` (descriptors of the server's that are not its own).
    fn start(&self, route: &[u8], open: &[RawFd]) -> Option<Spawner> {
        let (cgroups, limits) = decode(route)?;
        let (mine, theirs) = socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .ok()?;
        let server = nix::unistd::getpid();
        // SAFETY: the server is single-threaded, so the child may allocate and take locks freely.
        match unsafe { fork() } {
            Ok(ForkResult::Child) => {
                for &fd in open {
                    let _ = nix::unistd::close(fd);
                }
                self.close_in_child();
                drop(mine);
                let code = spawn_for(theirs, server, cgroups, limits);
                // SAFETY: ends this child at once, with no unwinding into the server's loop.
                unsafe { libc::_exit(code) };
            }
            Ok(ForkResult::Parent { child }) => Some(Spawner {
                pid: child,
                socket: mine,
                used: Instant::now(),
            }),
            Err(_) => None,
        }
    }
}

/// The spawner's life: joins the cgroups (a failure leaves each runner to join, and report it, itself), then forks a
/// runner per request until the server lets it go, and exits once those runners have ended.
fn spawn_for(socket: OwnedFd, server: Pid, cgroups: Vec<String>, limits: Vec<String>) -> i32 {
    let _ = nix::sys::prctl::set_child_subreaper(true);
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
    if nix::unistd::getppid() != server {
        return 1;
    }
    let Ok(sfd) = signals::take() else { return 1 };
    if let Ok(prepared) = limits::prepare(&cgroups, &limits, None) {
        if prepared.join() == 0 {
            let _ = JOINED.set((cgroups, limits));
        }
    }
    let mut spawner = serve::Server::new(false);
    spawner.serve_requests(&socket, &sfd, true);
    spawner.end_strays();
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_route_of_a_session() {
        let route = b"2\0/cg/pids/s-1\0/cg/memory/s-1\0pids.max=9\0?memory.swap.max=0\0";
        let (cgroups, limits) = decode(route).unwrap();
        assert_eq!(cgroups, ["/cg/pids/s-1", "/cg/memory/s-1"]);
        assert_eq!(limits, ["pids.max=9", "?memory.swap.max=0"]);
        assert_eq!(
            decode(b"1\0/cg/s\0").unwrap(),
            (vec!["/cg/s".to_string()], vec![])
        );
    }

    #[test]
    fn refuses_a_malformed_route() {
        for route in [
            &b""[..],
            b"0\0",
            b"2\0/cg/a\0",
            b"x\0/cg\0",
            b"1\0/cg",
            b"\xff\0",
        ] {
            assert_eq!(decode(route), None, "{route:?}");
        }
    }

    #[test]
    fn a_runner_joined_only_what_its_spawner_joined() {
        assert!(!joined(&[], &[]));
        assert!(!joined(&["/cg/x".into()], &[]));
    }
}
