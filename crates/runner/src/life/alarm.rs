//! A runner's alarm clock that rings even while the runner is stopped: a command may stop its runner (`kill -STOP
//! $PPID`), which would hold its deadline, its grace and its drain bound for as long as nobody continued it. A POSIX
//! timer sends the runner SIGCONT when the next of them is due: the kernel continues a stopped process on SIGCONT
//! whoever sends it, and to a running one it does nothing (no handler; no system call is interrupted). The runner's
//! own poll then wakes at the same instant and acts.

use std::time::{Duration, Instant};

pub struct Alarm {
    timer: libc::timer_t,
}

impl Alarm {
    /// None when the kernel gives no timer (the terms still hold while the runner runs).
    pub fn new() -> Option<Alarm> {
        // SAFETY: a zeroed sigevent is valid (all integers and a union); the fields set are the ones SIGEV_SIGNAL reads.
        let mut event: libc::sigevent = unsafe { std::mem::zeroed() };
        event.sigev_notify = libc::SIGEV_SIGNAL;
        event.sigev_signo = libc::SIGCONT;
        let mut timer: libc::timer_t = std::ptr::null_mut();
        // SAFETY: both pointers are to live locals of the right types; the timer is this process's own.
        let made =
            unsafe { libc::timer_create(libc::CLOCK_MONOTONIC, &mut event, &mut timer) } == 0;
        made.then_some(Alarm { timer })
    }

    /// Rings once at `at` (at once when it has passed), or never.
    pub fn set(&self, at: Option<Instant>) {
        let wait = at.map(|at| at.saturating_duration_since(Instant::now()));
        self.arm(wait, None);
    }

    /// Rings every `period` until set otherwise: while the runner does not know its terms yet, a command that stops
    /// it at once (before it read them) is not left stopped.
    pub fn repeat(&self, period: Duration) {
        self.arm(Some(period), Some(period));
    }

    fn arm(&self, first: Option<Duration>, every: Option<Duration>) {
        // SAFETY: a zeroed itimerspec disarms the timer; the fields are plain integers.
        let mut spec: libc::itimerspec = unsafe { std::mem::zeroed() };
        // A zero value disarms: the least wait is a nanosecond.
        let first = first.map(|wait| wait.max(Duration::from_nanos(1)));
        for (field, value) in [(&mut spec.it_value, first), (&mut spec.it_interval, every)] {
            if let Some(value) = value {
                field.tv_sec = value.as_secs() as _;
                field.tv_nsec = value.subsec_nanos() as libc::c_long;
            }
        }
        // SAFETY: the timer was made by timer_create and lives as long as self; spec is a live local.
        unsafe { libc::timer_settime(self.timer, 0, &spec, std::ptr::null_mut()) };
    }
}

impl Drop for Alarm {
    fn drop(&mut self) {
        // SAFETY: the timer was made by timer_create and is deleted once, here.
        unsafe { libc::timer_delete(self.timer) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_a_stopped_process_awake() {
        // A child stops itself; only its own timer's SIGCONT can continue it.
        // SAFETY: the child only arms a timer, stops itself and exits; it touches no shared state.
        match unsafe { nix::unistd::fork() }.unwrap() {
            nix::unistd::ForkResult::Child => {
                let alarm = Alarm::new().unwrap();
                alarm.set(Some(Instant::now() + Duration::from_millis(200)));
                let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGSTOP);
                // SAFETY: ends the forked child at once.
                unsafe { libc::_exit(7) };
            }
            nix::unistd::ForkResult::Parent { child } => {
                let status = nix::sys::wait::waitpid(child, None).unwrap();
                assert_eq!(status, nix::sys::wait::WaitStatus::Exited(child, 7));
            }
        }
    }
}
