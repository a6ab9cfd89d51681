//! The course of one command under its runner, by the terms its supervisor set (`wire::control`): its deadline,
//! counted from the start of bash (ended, or only reported, as the terms say), TERM then KILL after the grace once
//! something ends it (the first cause wins), and, once bash has ended, the bound on waiting for its output, after
//! which the runner says how many of its processes it left running. The same code for every executor: the worker's
//! fork server and `--stdio` over SSH fork the same runner.

use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::proc_tree;
use super::status::Status;
use crate::wire::control::{AtTimeout, Cause, Control, Terms};
use crate::wire::status::Status as Line;

pub struct Course {
    /// bash's pid, which is its process group, once it runs.
    bash: Option<Pid>,
    /// This runner: its descendants are what the command left.
    me: Pid,
    started: Instant,
    terms: Option<Terms>,
    cause: Option<Cause>,
    /// The deadline has passed (and was acted on).
    overdue: bool,
    /// When the group gets its KILL, after a TERM.
    kill_at: Option<Instant>,
    /// When bash ended.
    ended: Option<Instant>,
    /// `over` has been said.
    over: bool,
    /// A cause that came before bash ran: it acts once bash does.
    pending: Option<Cause>,
}

impl Course {
    /// A course about to start (its deadline counts from `started`, just before bash is forked).
    pub fn new(me: Pid, started: Instant) -> Course {
        Course {
            bash: None,
            me,
            started,
            terms: None,
            cause: None,
            overdue: false,
            kill_at: None,
            ended: None,
            over: false,
            pending: None,
        }
    }

    /// bash runs: a cause that came before acts now.
    pub fn running(&mut self, bash: Pid, now: Instant, status: &Status) {
        self.bash = Some(bash);
        if let Some(cause) = self.pending.take() {
            self.stop(cause, now, status);
        }
        self.tick(now, status);
    }

    /// True once the supervisor has set the terms.
    pub fn has_terms(&self) -> bool {
        self.terms.is_some()
    }

    /// The next instant something is due: the deadline, the KILL after the grace, the end of the drain.
    pub fn due(&self) -> Option<Instant> {
        let terms = self.terms?;
        let deadline = (!self.overdue && self.ended.is_none())
            .then(|| self.started + Duration::from_millis(terms.timeout_ms));
        let drain = self
            .ended
            .filter(|_| !self.over)
            .map(|ended| ended + Duration::from_millis(terms.drain_ms));
        [deadline, self.kill_at, drain].into_iter().flatten().min()
    }

    /// Acts on what is due by `now`.
    pub fn tick(&mut self, now: Instant, status: &Status) {
        let (Some(terms), Some(bash)) = (self.terms, self.bash) else {
            return;
        };
        if self.kill_at.is_some_and(|at| at <= now) {
            self.kill_at = None;
            // Even if bash has ended: its group may still hold descendants.
            signal_group(bash, Signal::SIGKILL);
        }
        let deadline = self.started + Duration::from_millis(terms.timeout_ms);
        if !self.overdue && self.ended.is_none() && deadline <= now {
            self.overdue = true;
            match terms.at_timeout {
                AtTimeout::Kill => self.stop(Cause::Timeout, now, status),
                AtTimeout::Report => status.line(&Line::Deadline.line()),
            }
        }
        if let Some(ended) = self.ended {
            if !self.over && ended + Duration::from_millis(terms.drain_ms) <= now {
                self.say_over(status);
            }
        }
    }

    /// A line from the supervisor.
    pub fn control(&mut self, control: Control, now: Instant, status: &Status) {
        match control {
            Control::Life(terms) => {
                self.terms = Some(terms);
                self.tick(now, status);
            }
            Control::Kill(cause) => self.stop(cause, now, status),
            Control::OutputEnded => {
                if self.ended.is_some() && !self.over && self.terms.is_some() {
                    self.say_over(status);
                }
            }
            // A terminal's lines go to its relay (`Control::for_terminal`).
            Control::Input(_) | Control::Resize(_) | Control::Screen | Control::Interrupt => {}
        }
    }

    /// bash has ended (its status is reported): the output now gets its drain bound.
    pub fn bash_ended(&mut self, now: Instant) {
        self.ended = Some(now);
    }

    /// Says, once, that nothing more is waited for: with nothing below the runner, nothing is left. A runner given no
    /// terms says nothing of its course: it reports bash's end and keeps the tree until its lifeline ends.
    pub fn over_with_nothing_left(&mut self, status: &Status) {
        if !self.over && self.terms.is_some() {
            self.over = true;
            status.line(&Line::Over(0).line());
        }
    }

    /// TERM to the group now (woken, should it be stopped), KILL after the grace; the first cause wins, and none
    /// once bash has ended.
    fn stop(&mut self, cause: Cause, now: Instant, status: &Status) {
        if self.cause.is_some() || self.ended.is_some() {
            return;
        }
        let Some(bash) = self.bash else {
            self.pending.get_or_insert(cause);
            return;
        };
        self.cause = Some(cause);
        status.line(&Line::Stopping(cause).line());
        signal_group(bash, Signal::SIGTERM);
        let grace = self.terms.map_or(0, |terms| terms.grace_ms);
        self.kill_at = Some(now + Duration::from_millis(grace));
        if grace == 0 {
            self.tick(now, status);
        }
    }

    fn say_over(&mut self, status: &Status) {
        self.over = true;
        // A signalled group's processes get their KILL at the grace: they are on their way out.
        let condemned = self.cause.and(self.bash);
        let left = proc_tree::left_running_settled(self.me, condemned);
        status.line(&Line::Over(left).line());
    }
}

/// The signal to bash's group, and SIGCONT with it: a stopped group would never act on a TERM.
fn signal_group(group: Pid, signal: Signal) {
    let _ = killpg(group, signal);
    let _ = killpg(group, Signal::SIGCONT);
}
