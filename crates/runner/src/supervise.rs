//! The runner's life: become a subreaper, start bash, report its end, reap orphans, and kill all on a lost lifeline.

use crate::status::Status;
use crate::plan::Plan;
use crate::{proc_tree, spawn};
use std::process::ExitCode;

pub fn run(plan: &Plan, status: Status) -> ExitCode {
    // SAFETY: prctl and sigprocmask with valid arguments only change this process's attributes.
    unsafe {
        // Orphaned descendants (double forks, setsid) reparent to us, so we can always find and kill them.
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let mask = blocked_signals();
    // SAFETY: mask is initialised; blocking before the fork means no SIGCHLD can be missed.
    unsafe { libc::sigprocmask(libc::SIG_BLOCK, &mask, std::ptr::null_mut()) };
    let sfd = unsafe { libc::signalfd(-1, &mask, libc::SFD_CLOEXEC) };
    if sfd < 0 {
        status.line(&format!("error signalfd: {}", std::io::Error::last_os_error()));
        return ExitCode::from(1);
    }
    let bash = match spawn::command(plan) {
        Ok(spawned) => {
            status.line(&format!("started {} {}", spawned.pid, spawned.enforcement));
            spawned.pid
        }
        Err(message) => {
            status.line(&format!("error {message}"));
            return ExitCode::from(1);
        }
    };
    release_stdio();
    // Non-blocking, so the lifeline check can drain what the supervisor sends without stalling.
    unsafe { libc::fcntl(status.fd(), libc::F_SETFL, libc::fcntl(status.fd(), libc::F_GETFL) | libc::O_NONBLOCK) };

    let mut bash_running = true;
    loop {
        let mut fds = [
            libc::pollfd { fd: status.fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: sfd, events: libc::POLLIN, revents: 0 },
        ];
        // SAFETY: fds is a live array of two pollfd records.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if n < 0 {
            continue;
        }
        if fds[0].revents != 0 && !status.alive() {
            proc_tree::kill_all(Some(bash), || {
                reap(bash, &mut bash_running, &status);
            });
            return ExitCode::SUCCESS;
        }
        if fds[1].revents != 0 {
            let signal = read_signal(sfd);
            if signal != libc::SIGCHLD {
                proc_tree::kill_all(Some(bash), || {
                    reap(bash, &mut bash_running, &status);
                });
                return ExitCode::SUCCESS;
            }
            if reap(bash, &mut bash_running, &status) {
                return ExitCode::SUCCESS;
            }
        }
    }
}

fn blocked_signals() -> libc::sigset_t {
    // SAFETY: sigset operations on a local, zeroed set.
    unsafe {
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut mask);
        for sig in [libc::SIGCHLD, libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::sigaddset(&mut mask, sig);
        }
        mask
    }
}

/// Points our own stdin/stdout/stderr at /dev/null: holding the output pipes would delay their end-of-file for as
/// long as the runner lives.
fn release_stdio() {
    // SAFETY: open/dup2/close on fds we own.
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

fn read_signal(sfd: libc::c_int) -> i32 {
    // SAFETY: signalfd_siginfo is plain data; the read fills it whole or fails.
    let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::signalfd_siginfo>();
    let n = unsafe { libc::read(sfd, (&mut info as *mut libc::signalfd_siginfo).cast(), size) };
    if n as usize == size {
        info.ssi_signo as i32
    } else {
        0
    }
}

/// Reaps every ended child; reports bash's end once. Returns true when no child is left and bash has ended.
fn reap(bash: libc::pid_t, bash_running: &mut bool, status: &Status) -> bool {
    loop {
        let mut wstatus = 0;
        // SAFETY: waitpid writes the status into a local.
        let pid = unsafe { libc::waitpid(-1, &mut wstatus, libc::WNOHANG) };
        if pid == 0 {
            return false;
        }
        if pid < 0 {
            // ECHILD: nothing left to wait for.
            return !*bash_running;
        }
        if pid == bash && *bash_running {
            *bash_running = false;
            if libc::WIFSIGNALED(wstatus) {
                status.line(&format!("signal {}", libc::WTERMSIG(wstatus)));
            } else {
                status.line(&format!("exit {}", libc::WEXITSTATUS(wstatus)));
            }
        }
    }
}
