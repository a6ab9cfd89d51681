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
use std::time::{Duration, Instant};

use nix::poll::PollTimeout;
use nix::sys::signal::{kill, Signal};
use nix::sys::socket::{
    sendmsg, socketpair, AddressFamily, ControlMessage, MsgFlags, SockFlag, SockType,
};
use nix::unistd::{fork, ForkResult, Pid};

use crate::wire::route::Route;

/// What a spawner does once forked: given its end of the server's socket, the server's pid and its route, it serves
/// and returns its exit code.
pub type Life = fn(OwnedFd, Pid, Route) -> i32;

/// How long a spawner may go without a command before the server lets it go.
const IDLE: Duration = Duration::from_secs(30);

struct Spawner {
    pid: Pid,
    /// The server's end of the spawner's request socket.
    socket: OwnedFd,
    used: Instant,
}

/// The live spawners of one fork server, by route.
#[derive(Default)]
pub struct Spawners {
    by_route: HashMap<Vec<u8>, Spawner>,
}

impl Spawners {
    /// Hands one command's descriptors to the spawner of `route` (the payload after its mark), starting it with
    /// `life` if need be; false when that cannot be done now (the caller forks the runner itself). `server_fds` are the
    /// server's own descriptors, which no spawner may keep; a started spawner joins `runners`, so the server never
    /// takes it for a stray.
    pub fn hand(
        &mut self,
        route: &[u8],
        fds: &[OwnedFd; 3],
        server_fds: [RawFd; 2],
        runners: &mut std::collections::HashSet<Pid>,
        life: Life,
    ) -> bool {
        if !self.by_route.contains_key(route) {
            // Its request's own descriptors stay out of it too: a copy there would hold the command's pipes and
            // status socket open for as long as the spawner lives.
            let open: Vec<RawFd> = server_fds
                .into_iter()
                .chain(fds.iter().map(|fd| fd.as_raw_fd()))
                .collect();
            let Some(spawner) = self.start(route, &open, life) else {
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
    pub fn timeout(&self) -> PollTimeout {
        let Some(next) = self.by_route.values().map(|s| s.used + IDLE).min() else {
            return PollTimeout::NONE;
        };
        let ms = next.saturating_duration_since(Instant::now()).as_millis();
        PollTimeout::from(u16::try_from(ms + 1).unwrap_or(u16::MAX))
    }

    /// Lets go of the idle spawners: each exits once its runners have ended.
    pub fn expire(&mut self) {
        let now = Instant::now();
        self.by_route.retain(|_, s| now < s.used + IDLE);
    }

    /// Forgets a spawner that ended; true when `pid` was one.
    pub fn ended(&mut self, pid: Pid) -> bool {
        let before = self.by_route.len();
        self.by_route.retain(|_, s| s.pid != pid);
        self.by_route.len() != before
    }

    /// Closes, in a child just forked from the server, every spawner's socket: a copy held elsewhere would keep a
    /// spawner from seeing the server let it go.
    pub fn close_in_child(&self) {
        for spawner in self.by_route.values() {
            let _ = nix::unistd::close(spawner.socket.as_raw_fd());
        }
    }

    /// Forks the spawner of `route`, which closes `open` (descriptors of the server's that are not its own).
    fn start(&self, route: &[u8], open: &[RawFd], life: Life) -> Option<Spawner> {
        let route = Route::decode(route)?;
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
                let code = life(theirs, server, route);
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
