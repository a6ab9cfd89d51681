//! Forks bash into a new session (its own process group, no controlling terminal) and reports exec failures.

use std::ffi::CString;

pub struct Spawned {
    pub pid: libc::pid_t,
}

/// Starts `bash -c <command>` as a session leader.
///
/// # Errors
/// Returns the stage and OS error text when the fork or the exec failed; the command did not run then.
pub fn bash(command: &str) -> Result<Spawned, String> {
    let shell = CString::new("bash").expect("static string");
    let flag = CString::new("-c").expect("static string");
    let command = CString::new(command).map_err(|_| "spawn bash: the command contains a NUL byte".to_string())?;
    let argv = [shell.as_ptr(), flag.as_ptr(), command.as_ptr(), std::ptr::null()];

    // The exec-failure pipe is close-on-exec: a successful exec closes it and the read below sees EOF.
    let mut pipe = [0; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("spawn bash: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: the child only calls async-signal-safe functions before exec or _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let err = std::io::Error::last_os_error();
        unsafe {
            libc::close(pipe[0]);
            libc::close(pipe[1]);
        }
        return Err(format!("spawn bash: {err}"));
    }
    if pid == 0 {
        unsafe { child(pipe[1], argv.as_ptr()) }
    }
    unsafe { libc::close(pipe[1]) };
    let mut errno = [0u8; 4];
    let n = loop {
        // SAFETY: errno is a live 4-byte buffer.
        let n = unsafe { libc::read(pipe[0], errno.as_mut_ptr().cast(), 4) };
        if n < 0 && crate::status::errno() == libc::EINTR {
            continue;
        }
        break n;
    };
    unsafe { libc::close(pipe[0]) };
    if n == 4 {
        let code = i32::from_ne_bytes(errno);
        let mut status = 0;
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(format!("spawn bash: {}", std::io::Error::from_raw_os_error(code)));
    }
    Ok(Spawned { pid })
}

/// In the forked child: new session, default signal state, then exec. Never returns.
unsafe fn child(report: libc::c_int, argv: *const *const libc::c_char) -> ! {
    libc::setsid();
    // The runner blocks signals for its signalfd and Rust ignores SIGPIPE; bash must start with neither.
    let mut empty: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut empty);
    libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
    for sig in [libc::SIGPIPE, libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGCHLD] {
        libc::signal(sig, libc::SIG_DFL);
    }
    libc::execvp(*argv, argv);
    let code = *libc::__errno_location();
    let bytes = code.to_ne_bytes();
    libc::write(report, bytes.as_ptr().cast(), 4);
    libc::_exit(127);
}
