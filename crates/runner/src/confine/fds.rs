//! Descriptors: a command receives 0, 1 and 2 only. Everything above is marked close-on-exec in the forked
//! child, so no descriptor the host inherited (nor the runner's status channel) survives the exec of the command.

/// Returns 0 or an errno. Async-signal-safe.
pub fn close_above_stdio() -> i32 {
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets flags on this process's descriptors.
    let r = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if r == 0 {
        return 0;
    }
    // Kernels before 5.11 lack close_range: walk up to the descriptor limit instead.
    // SAFETY: getrlimit fills a local; fcntl on an unopened descriptor fails harmlessly with EBADF.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur.min(1 << 20)
        } else {
            1024
        };
        for fd in 3..max as libc::c_int {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
    0
}

/// Lets one descriptor cross the exec (bubblewrap's filter input). Returns 0 or an errno.
pub fn inherit(fd: libc::c_int) -> i32 {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
            return *libc::__errno_location();
        }
    }
    0
}
