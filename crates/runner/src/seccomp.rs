//! System-call filters (seccompiler): no new sockets but netlink (and unix, when allowed) when the network is denied,
//! and, where no mount namespace is possible, no change of mode, owner, times or extended attributes anywhere.

use std::collections::BTreeMap;
use std::os::fd::OwnedFd;

use seccompiler::{BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule};

/// Calls that change file metadata. Without a read-only mount beneath them they must fail everywhere, the
/// writable roots included: a filter cannot tell paths apart.
const METADATA: &[i64] = &[
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    452, // fchmodat2
    libc::SYS_fchown,
    libc::SYS_fchownat,
    libc::SYS_utimensat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    463, // setxattrat
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    466, // removexattrat
];

/// The path-based forms that predate the `*at` calls. Only the older ABIs have them: arm64 offers the `*at` forms
/// alone, so there the list above already covers every way in.
#[cfg(target_arch = "x86_64")]
const LEGACY_METADATA: &[i64] = &[
    libc::SYS_chmod,
    libc::SYS_chown,
    libc::SYS_lchown,
    libc::SYS_utime,
    libc::SYS_utimes,
    libc::SYS_futimesat,
];
#[cfg(not(target_arch = "x86_64"))]
const LEGACY_METADATA: &[i64] = &[];

fn arch() -> Result<seccompiler::TargetArch, String> {
    std::env::consts::ARCH.try_into().map_err(|e| format!("seccomp: {e:?}"))
}

/// Denies creating any socket but netlink (EACCES): no TCP, no UDP, no raw or packet socket, and, unless
/// `allow_unix` is set, no unix socket to connect anywhere. io_uring is refused too, since its socket operations
/// would pass the filter by.
///
/// # Errors
/// The compiler's message; the command must then not run.
pub fn network_filter(allow_unix: bool) -> Result<BpfProgram, String> {
    let not = |family: i32| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family as u64).map_err(|e| format!("seccomp: {e}"))
    };
    // The conditions of one rule must all hold: the family is none of the allowed ones.
    let mut refused = vec![not(libc::AF_NETLINK)?];
    if allow_unix {
        refused.push(not(libc::AF_UNIX)?);
    }
    let mut rules = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![SeccompRule::new(refused).map_err(|e| format!("seccomp: {e}"))?]);
    rules.insert(libc::SYS_io_uring_setup, vec![]);
    compile(rules, libc::EACCES)
}

/// SysV IPC objects live in the host's namespace when no IPC namespace could be made: no new ones.
const SYSV_IPC: &[i64] = &[libc::SYS_shmget, libc::SYS_semget, libc::SYS_msgget, libc::SYS_mq_open];

/// Where no namespace is possible: denies every metadata change and every new SysV IPC object (EPERM).
///
/// # Errors
/// The compiler's message.
pub fn fallback_filter() -> Result<BpfProgram, String> {
    compile(METADATA.iter().chain(LEGACY_METADATA).chain(SYSV_IPC).map(|&nr| (nr, vec![])).collect(), libc::EPERM)
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch()?)
        .map_err(|e| format!("seccomp: {e}"))?;
    filter.try_into().map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))
}

/// Installs `program` on the calling thread (sets no_new_privs first). Returns 0 or an errno.
pub fn apply(program: &BpfProgram) -> i32 {
    match seccompiler::apply_filter(program) {
        Ok(()) => 0,
        Err(seccompiler::Error::Seccomp(e) | seccompiler::Error::Prctl(e)) => e.raw_os_error().unwrap_or(libc::EINVAL),
        Err(_) => libc::EINVAL,
    }
}

/// The compiled program as bytes in a pipe whose writer is closed, for `bwrap --seccomp <fd>`.
///
/// # Errors
/// The OS error of the pipe or the write.
pub fn program_fd(program: &BpfProgram) -> Result<OwnedFd, String> {
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for insn in program {
        bytes.extend_from_slice(&insn.code.to_ne_bytes());
        bytes.extend_from_slice(&[insn.jt, insn.jf]);
        bytes.extend_from_slice(&insn.k.to_ne_bytes());
    }
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| format!("seccomp pipe: {e}"))?;
    // A filter is a few hundred bytes, far below a pipe's capacity: the write cannot block.
    rustix::io::write(&write, &bytes).map_err(|e| format!("seccomp pipe: {e}"))?;
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `probe` in a forked child under `program`; the child exits with the probe's result.
    fn under(program: &BpfProgram, probe: fn() -> i32) -> i32 {
        // SAFETY: the child makes system calls only and leaves with _exit.
        match unsafe { libc::fork() } {
            0 => unsafe {
                if apply(program) != 0 {
                    libc::_exit(99);
                }
                libc::_exit(probe());
            },
            pid => {
                let mut status = 0;
                // SAFETY: waits for our own child.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                libc::WEXITSTATUS(status)
            }
        }
    }

    fn socket_errno(domain: i32) -> i32 {
        // SAFETY: socket() with constant arguments; the fd is closed at once.
        let fd = unsafe { libc::socket(domain, libc::SOCK_DGRAM, 0) };
        if fd >= 0 {
            unsafe { libc::close(fd) };
            return 0;
        }
        std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
    }

    #[test]
    fn the_network_filter_refuses_inet_and_unix_sockets_but_not_netlink() {
        let program = network_filter(false).unwrap();
        assert_eq!(under(&program, || socket_errno(libc::AF_INET)), libc::EACCES);
        assert_eq!(under(&program, || socket_errno(libc::AF_INET6)), libc::EACCES);
        assert_eq!(under(&program, || socket_errno(libc::AF_UNIX)), libc::EACCES);
        assert_eq!(under(&program, || socket_errno(libc::AF_NETLINK)), 0);
    }

    #[test]
    fn allowing_unix_sockets_lets_unix_through_and_nothing_else() {
        let program = network_filter(true).unwrap();
        assert_eq!(under(&program, || socket_errno(libc::AF_UNIX)), 0);
        assert_eq!(under(&program, || socket_errno(libc::AF_NETLINK)), 0);
        type Probe = (&'static str, fn() -> i32);
        let refused: [Probe; 4] = [
            ("inet", || socket_errno(libc::AF_INET)),
            ("inet6", || socket_errno(libc::AF_INET6)),
            ("packet", || socket_errno(libc::AF_PACKET)),
            ("vsock", || socket_errno(libc::AF_VSOCK)),
        ];
        for (family, probe) in refused {
            assert_eq!(under(&program, probe), libc::EACCES, "{family}");
        }
        let uring = || {
            // SAFETY: io_uring_setup with a zeroed parameter block; a ring, if made, is closed at once.
            let mut params = [0u8; 120];
            let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) };
            if fd >= 0 {
                unsafe { libc::close(fd as i32) };
                return 0;
            }
            std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
        };
        assert_eq!(under(&program, uring), libc::EACCES);
    }

    #[test]
    fn the_fallback_filter_refuses_metadata_changes_and_sysv_ipc() {
        let program = fallback_filter().unwrap();
        let chmod = || {
            // SAFETY: chmod of a path that may not exist; only the errno matters.
            let r = unsafe { libc::chmod(c"/nonexistent-shellring".as_ptr(), 0o777) };
            if r == 0 { 0 } else { std::io::Error::last_os_error().raw_os_error().unwrap_or(-1) }
        };
        assert_eq!(under(&program, chmod), libc::EPERM);
        let shm = || {
            // SAFETY: shmget with constant arguments.
            let r = unsafe { libc::shmget(libc::IPC_PRIVATE, 4096, 0o600) };
            if r >= 0 { 0 } else { std::io::Error::last_os_error().raw_os_error().unwrap_or(-1) }
        };
        assert_eq!(under(&program, shm), libc::EPERM);
    }

    #[test]
    fn the_program_bytes_are_eight_per_instruction() {
        let program = network_filter(false).unwrap();
        let fd = program_fd(&program).unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::fs::File::from(fd), &mut bytes).unwrap();
        assert_eq!(bytes.len(), program.len() * 8);
    }
}
