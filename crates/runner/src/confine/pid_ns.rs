//! The Landlock backend's pid namespace, after `unshare(CLONE_NEWPID)`: the runner's child stays outside as a monitor
//! that ends exactly as bash ends; its child is the namespace's first process (its init), which starts bash and
//! ends when bash does, taking every process left in the namespace with it (as bubblewrap's does). No process of
//! the host, nor of another command, can be seen from inside. Async-signal-safe throughout: this runs between fork
//! and exec.

use std::os::fd::RawFd;

/// Forks the namespace's first process and returns in it. The caller (outside) never returns: it drops its copy of
/// the report pipe, waits, and ends the way bash ended, or the way the first process did if bash never ran.
///
/// # Safety
/// In a freshly forked, single-threaded child that has unshared its pid namespace; `report` is its report pipe.
pub unsafe fn split(report: RawFd) -> Status {
    let mut pipe = [0; 2];
    if libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
        return Status::Failed(*libc::__errno_location());
    }
    match libc::fork() {
        -1 => Status::Failed(*libc::__errno_location()),
        0 => {
            libc::close(pipe[0]);
            Status::Inside(pipe[1])
        }
        first => {
            libc::close(pipe[1]);
            libc::close(report);
            monitor(first, pipe[0])
        }
    }
}

pub enum Status {
    /// In the namespace's first process; the descriptor takes bash's wait status to the monitor.
    Inside(RawFd),
    /// The fork (or its pipe) failed with this errno; nothing was started.
    Failed(i32),
}

/// Outside: waits for bash's wait status (or the first process's end) and ends the same way.
///
/// # Safety
/// Only from `split`, outside the namespace, in the forked child there; `from` is the read end of the pipe the first
/// process writes bash's wait status to. It calls only async-signal-safe functions.
unsafe fn monitor(first: libc::pid_t, from: RawFd) -> ! {
    // The command's own process group gets the supervisor's signals: bash decides what they do, not this process.
    let mut all: libc::sigset_t = std::mem::zeroed();
    libc::sigfillset(&mut all);
    libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
    let mut bytes = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match libc::read(from, bytes[got..].as_mut_ptr().cast(), 4 - got) {
            n if n > 0 => got += n as usize,
            -1 if *libc::__errno_location() == libc::EINTR => {}
            _ => break,
        }
    }
    let mut status = 0;
    while libc::waitpid(first, &mut status, 0) == -1 && *libc::__errno_location() == libc::EINTR {}
    if got == 4 {
        status = i32::from_ne_bytes(bytes);
    }
    end_as(status)
}

/// Ends this process with `status`: the same exit code, or death by the same signal (without a core file).
///
/// # Safety
/// Only in a forked child that holds no lock: it calls only async-signal-safe functions, and never returns.
unsafe fn end_as(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(signal, libc::SIG_DFL);
        let mut only: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut only);
        libc::sigaddset(&mut only, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(libc::WEXITSTATUS(status));
}

/// In the namespace's first process, once confined: forks bash's process and returns in it. The first process
/// reaps every orphan of the namespace, passes bash's wait status to the monitor when bash ends, and exits, which
/// ends everything still in the namespace.
///
/// # Safety
/// As for `split`; `to_monitor` is the descriptor `split` returned inside, `report` the report pipe.
pub unsafe fn init(to_monitor: RawFd, report: RawFd) -> Result<(), i32> {
    let bash = libc::fork();
    if bash == -1 {
        return Err(*libc::__errno_location());
    }
    if bash == 0 {
        libc::close(to_monitor);
        return Ok(());
    }
    // Only bash's process may hold the report pipe now: its exec closes it, which tells the runner bash started.
    libc::close(report);
    let mut status = 0;
    loop {
        match libc::waitpid(-1, &mut status, 0) {
            pid if pid == bash => break,
            -1 if *libc::__errno_location() != libc::EINTR => libc::_exit(127),
            _ => {}
        }
    }
    let bytes = status.to_ne_bytes();
    libc::write(to_monitor, bytes.as_ptr().cast(), 4);
    libc::_exit(0);
}
