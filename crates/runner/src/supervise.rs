//! The runner's life: become a subreaper, start bash, report its end, reap orphans, and kill all on a lost lifeline.

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;
use nix::sys::signalfd::SignalFd;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::os::fd::AsFd;

use crate::error::RunnerError;
use crate::plan::Plan;
use crate::status::Status;
use crate::{host_pid, proc_tree, signals, spawn, stage};

/// How a supervision ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// bash ran; it and every descendant have ended or were killed.
    Ran,
    /// The command did not run; the reason went out on the status channel as an `error <code>` line.
    NotStarted,
}

/// Who started the runner, which decides whether its death ends the command.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    /// The supervising worker itself: its death (even a thread's) ends everything.
    Supervisor,
    /// The fork server: should it die, the command lives on, still bound to the worker by the status socket.
    Server,
}

/// Runs the plan to its end: returns once bash and every descendant have ended, or all were killed because the
/// supervisor went away or asked us to stop.
pub fn run(plan: &Plan, status: &Status, parent: Parent) -> Ended {
    // Our own process group in the host's session, out of its terminal's reach: should the host die while we are
    // stopped, this group becomes orphaned and the kernel sends it SIGHUP then SIGCONT, which ends our tree.
    let _ = nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
    // Orphaned descendants (double forks, setsid) reparent to us, so we can always find and kill them.
    let _ = nix::sys::prctl::set_child_subreaper(true);
    // A parent that dies without closing the lifeline (its thread ended, it was SIGKILLed mid-spawn) still ends us
    // through the same path as a lost lifeline.
    if parent == Parent::Supervisor {
        let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
    }
    let sfd = match signals::take() {
        Ok(sfd) => sfd,
        Err(e) => {
            status.line(
                &RunnerError::Setup(stage::Failed::new(stage::SIGNALFD, e as i32).detail()).line(),
            );
            return Ended::NotStarted;
        }
    };
    let bash = match spawn::command(plan) {
        Ok(spawned) => {
            // The host signals bash's group by this pid: the one it sees, should we run in a sandbox's namespace.
            status.line(&format!(
                "started {} {}",
                host_pid::only_child(spawned.pid.as_raw()),
                spawned.enforcement
            ));
            spawned.pid
        }
        Err(error) => {
            status.line(&error.line());
            return Ended::NotStarted;
        }
    };
    release_stdio();
    status.set_nonblocking();
    let me = nix::unistd::getpid();
    // In a session sandbox the command shares its pid namespace with the session's others, so no init of its own
    // ends what it left running when bash ends: the runner does, as such an init would.
    let mut tracker = Tracker {
        bash,
        running: true,
        end_with_bash: plan.inside.then_some(me),
    };
    loop {
        let (lifeline, signalled) = wait_events(status, &sfd);
        if lifeline && !status.alive() {
            proc_tree::kill_all(me, Some(bash), || {
                tracker.reap(status);
            });
            return Ended::Ran;
        }
        if signalled {
            while let Some(signal) = signals::next(&sfd) {
                if signal != libc::SIGCHLD {
                    proc_tree::kill_all(me, Some(bash), || {
                        tracker.reap(status);
                    });
                    return Ended::Ran;
                }
            }
            if tracker.reap(status) {
                return Ended::Ran;
            }
        }
    }
}

/// Blocks until the lifeline or the signalfd is ready; says which.
fn wait_events(status: &Status, sfd: &SignalFd) -> (bool, bool) {
    let mut fds = [
        PollFd::new(status.fd(), PollFlags::POLLIN),
        PollFd::new(sfd.as_fd(), PollFlags::POLLIN),
    ];
    match poll(&mut fds, PollTimeout::NONE) {
        Ok(_) => (fds[0].any().unwrap_or(false), fds[1].any().unwrap_or(false)),
        Err(_) => (false, false),
    }
}

/// Points our own stdin/stdout/stderr at /dev/null: holding the output pipes would delay their end-of-file for as
/// long as the runner lives.
fn release_stdio() {
    // SAFETY: open/dup2/close on fds this process owns; fds 0-2 stay open, now on /dev/null.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
            libc::close(null);
        }
    }
}

struct Tracker {
    bash: Pid,
    running: bool,
    /// This runner, when everything below it ends as bash ends (before bash's end is reported).
    end_with_bash: Option<Pid>,
}

impl Tracker {
    fn bash_ended(&mut self) {
        self.running = false;
        if let Some(me) = self.end_with_bash {
            proc_tree::kill_all(me, None, || {
                while let Ok(WaitStatus::Exited(..) | WaitStatus::Signaled(..)) =
                    waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG))
                {}
            });
        }
    }

    /// Reaps every ended child; reports bash's end once. Returns true when no child is left and bash has ended.
    fn reap(&mut self, status: &Status) -> bool {
        let mut report = None;
        let done = loop {
            match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => break false,
                Ok(WaitStatus::Exited(pid, code)) if pid == self.bash && self.running => {
                    self.bash_ended();
                    report = Some(format!("exit {code}"));
                }
                Ok(WaitStatus::Signaled(pid, signal, _)) if pid == self.bash && self.running => {
                    self.bash_ended();
                    report = Some(format!("signal {}", signal as i32));
                }
                Ok(_) => {}
                Err(Errno::EINTR) => {}
                // ECHILD: nothing left to wait for.
                Err(_) => break !self.running,
            }
        };
        if let Some(line) = report {
            status.line(&line);
            // Nothing is left to supervise: the channel ends with the line, so the supervisor reads bash's end and
            // this runner's in one wake, and need not look for what the command left behind.
            if done {
                status.close();
            }
        }
        done
    }
}
