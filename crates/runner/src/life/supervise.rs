//! The runner's life: become a subreaper, start bash, follow it by its supervisor's terms (`course`), report its
//! end, reap orphans, and kill all on a lost lifeline; meanwhile relay a terminal job's terminal (`term`).

use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;
use nix::sys::signalfd::SignalFd;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use super::alarm::Alarm;
use super::course::Course;
use super::status::Status;
use super::term::{self, Term};
use super::{proc_tree, signals};
use crate::confine::{host_pid, spawn};
use crate::failure::{Failed, RunnerError};
use crate::wire::control::Control;
use crate::wire::plan::Plan;
use crate::wire::stage;
use crate::wire::status::Status as Line;

/// How often a runner that does not know its terms yet is woken, should its command have stopped it.
const UNTIL_TERMS: Duration = Duration::from_millis(100);

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
/// supervisor went away or asked us to stop. `early`: what the supervisor sent behind the request (its terms);
/// `term`: the relay of a terminal job's terminal.
pub fn run(
    plan: &Plan,
    status: &Status,
    parent: Parent,
    mut early: Vec<u8>,
    term: Option<Term>,
) -> Ended {
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
            status
                .line(&RunnerError::Setup(Failed::new(stage::SIGNALFD, e as i32).detail()).line());
            return Ended::NotStarted;
        }
    };
    // The terms, and the alarm that keeps them, before bash can run: a command may stop its runner at once.
    let me = nix::unistd::getpid();
    let mut course = Course::new(me, Instant::now());
    // What is for the terminal waits until there is a command to take it.
    let mut for_terminal = Vec::new();
    take_lines(&mut early, |control| match control.for_terminal() {
        true => for_terminal.push(control),
        false => course.control(control, Instant::now(), status),
    });
    let alarm = Alarm::new();
    if let Some(alarm) = &alarm {
        match course.has_terms() {
            true => alarm.set(course.due()),
            // Terms still on their way (a --stdio frame that came apart): woken until they came.
            false => alarm.repeat(UNTIL_TERMS),
        }
    }
    let bash = match spawn::command(plan) {
        Ok(spawned) => {
            // The host signals bash's group by this pid: the one it sees, should we run in a sandbox's namespace.
            status.line(
                &Line::Started {
                    pid: host_pid::only_child(spawned.pid.as_raw()),
                    enforcement: spawned.enforcement.into(),
                }
                .line(),
            );
            spawned.pid
        }
        Err(error) => {
            status.line(&error.line());
            return Ended::NotStarted;
        }
    };
    release_stdio();
    status.set_nonblocking();
    course.running(bash, Instant::now(), status);
    // In a session sandbox the command shares its pid namespace with the session's others, so no init of its own
    // ends what it left running when bash ends: the runner does, as such an init would.
    let tracker = Tracker {
        bash,
        running: true,
        end_with_bash: plan.inside.then_some(me),
        ended: 0,
    };
    let mut life = Life {
        course,
        term,
        tracker,
    };
    for control in for_terminal {
        life.act(control, Instant::now(), status);
    }
    supervise(status, &sfd, &mut life, alarm, early);
    Ended::Ran
}

/// What the runner keeps while it follows a command.
struct Life {
    course: Course,
    term: Option<Term>,
    tracker: Tracker,
}

impl Life {
    /// One of the supervisor's lines: the terminal's go to its relay, the rest to the course.
    fn act(&mut self, control: Control, now: Instant, status: &Status) {
        match control.for_terminal() {
            true => term::control(control, self.term.as_mut(), self.tracker.bash, status),
            false => self.course.control(control, now, status),
        }
    }

    /// Kills everything left (the supervisor went away or a signal asked it).
    fn kill_all(&mut self, me: Pid, status: &Status) {
        let tracker = &mut self.tracker;
        proc_tree::kill_all(me, Some(tracker.bash), || {
            tracker.reap(status);
        });
    }
}

/// Acts on each whole line `inbox` holds (a partial last line stays in it).
fn take_lines(inbox: &mut Vec<u8>, mut act: impl FnMut(Control)) {
    while let Some(end) = inbox.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = inbox.drain(..=end).collect();
        if let Some(control) = Control::parse(String::from_utf8_lossy(&line[..end]).as_ref()) {
            act(control);
        }
    }
}

/// Follows bash to its end and its tree after it, by the terms the supervisor sends; returns once nothing is left,
/// or everything was killed because the supervisor went away or asked the runner to stop.
fn supervise(
    status: &Status,
    sfd: &SignalFd,
    life: &mut Life,
    alarm: Option<Alarm>,
    mut inbox: Vec<u8>,
) {
    let me = nix::unistd::getpid();
    loop {
        let due = life.course.due();
        if let (Some(alarm), true) = (&alarm, life.course.has_terms()) {
            alarm.set(due);
        }
        let (lifeline, signalled) = wait_events(status, sfd, due, life.term.as_ref());
        let now = Instant::now();
        if let Some(term) = life.term.as_mut() {
            term.pump();
        }
        // Children first: a request that comes with bash's end (a stopped runner woken to act on it) finds bash
        // ended, and changes nothing.
        if signalled {
            while let Some(signal) = signals::next(sfd) {
                if signal != libc::SIGCHLD {
                    life.kill_all(me, status);
                    return;
                }
            }
            let reaped = life.tracker.reap(status);
            if reaped.bash_ended {
                life.course.bash_ended(now);
            }
            if reaped.done {
                // Nothing holds the terminal any more: what it still holds goes into the pipe first, so the output
                // is whole when the supervisor reads its end.
                if let Some(term) = life.term.take() {
                    term.finish();
                }
                // Nothing is left to supervise: the channel ends with the lines, so the supervisor reads bash's end,
                // the end of its output and this runner's in one wake.
                life.course.over_with_nothing_left(status);
                status.close();
                return;
            }
        }
        if lifeline && !status.receive(&mut inbox) {
            life.kill_all(me, status);
            return;
        }
        take_lines(&mut inbox, |control| life.act(control, now, status));
        life.course.tick(now, status);
    }
}

/// Blocks until the lifeline, the signalfd or the terminal's relay is ready, or `due`; says which of the first two.
fn wait_events(
    status: &Status,
    sfd: &SignalFd,
    due: Option<Instant>,
    term: Option<&Term>,
) -> (bool, bool) {
    let mut fds = vec![
        PollFd::new(status.fd(), PollFlags::POLLIN),
        PollFd::new(sfd.as_fd(), PollFlags::POLLIN),
    ];
    if let Some(term) = term {
        fds.extend(term.interest());
    }
    let timeout = match due {
        None => PollTimeout::NONE,
        // Rounded up, so a wake never comes before what it is for.
        Some(at) => {
            let ms = at
                .saturating_duration_since(Instant::now())
                .as_micros()
                .div_ceil(1000);
            PollTimeout::try_from(ms.min(i32::MAX as u128) as i32).unwrap_or(PollTimeout::MAX)
        }
    };
    match poll(&mut fds, timeout) {
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

/// What a reap found.
struct Reaped {
    /// No child is left, and bash has ended.
    done: bool,
    /// bash's end was reported just now.
    bash_ended: bool,
}

struct Tracker {
    bash: Pid,
    running: bool,
    /// This runner, when everything below it ends as bash ends (before bash's end is reported).
    end_with_bash: Option<Pid>,
    /// How many processes bash left running that ended with it (its status line carries them).
    ended: u32,
}

impl Tracker {
    fn bash_ended(&mut self) {
        self.running = false;
        if let Some(me) = self.end_with_bash {
            // What is already on its way out (ssh's hung-up ProxyCommand on a loaded host) gets its moment to go;
            // only what is still there then was left running.
            let left = proc_tree::left_running_settled(me, None);
            proc_tree::kill_all(me, None, || {
                while let Ok(WaitStatus::Exited(..) | WaitStatus::Signaled(..)) =
                    waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG))
                {}
            });
            self.ended = u32::try_from(left).unwrap_or(u32::MAX);
        }
    }

    /// Reaps every ended child; reports bash's end once.
    fn reap(&mut self, status: &Status) -> Reaped {
        let mut report = None;
        let done = loop {
            match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => break false,
                Ok(WaitStatus::Exited(pid, code)) if pid == self.bash && self.running => {
                    self.bash_ended();
                    report = Some(
                        Line::Exit {
                            code,
                            ended: self.ended,
                        }
                        .line(),
                    );
                }
                Ok(WaitStatus::Signaled(pid, signal, _)) if pid == self.bash && self.running => {
                    self.bash_ended();
                    report = Some(
                        Line::Signal {
                            number: signal as i32,
                            ended: self.ended,
                        }
                        .line(),
                    );
                }
                Ok(_) => {}
                Err(Errno::EINTR) => {}
                // ECHILD: nothing left to wait for.
                Err(_) => break !self.running,
            }
        };
        let bash_ended = report.is_some();
        if let Some(line) = report {
            status.line(&line);
        }
        Reaped { done, bash_ended }
    }
}
