//! System-call filters (seccompiler): no kernel keyring for any confined command, no new sockets but netlink (and
//! unix, when allowed) when the network is denied, and, where no mount namespace is possible, no change of mode,
//! owner, times or extended attributes anywhere and no SysV IPC.

use std::collections::BTreeMap;
use std::os::fd::OwnedFd;

use crate::wire::plan::NetFilter;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

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
    std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("seccomp: {e:?}"))
}

/// The kernel's key store: keys are shared per user (root's user keyring holds credentials of the whole host), so a
/// confined command neither reads nor adds one.
const KEYRINGS: &[i64] = &[libc::SYS_keyctl, libc::SYS_add_key, libc::SYS_request_key];

/// Every confined command's filter (EACCES): no keyring call, and with a network filter no socket but netlink:
/// denied, no TCP, no UDP, no raw or packet socket, and, unless `allow_unix` is set, no unix socket to connect
/// anywhere; in domains mode also TCP over IPv4 and IPv6 (its namespace has only loopback, where the proxy listens),
/// but no datagram, raw, packet or unix socket. io_uring is refused with either, since its socket operations would
/// pass the filter by.
///
/// # Errors
/// The compiler's message; the command must then not run.
pub fn command_filter(network: Option<NetFilter>) -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        KEYRINGS.iter().map(|&nr| (nr, vec![])).collect();
    match network {
        Some(NetFilter::Deny { allow_unix }) => {
            rules.extend(network_rules(if allow_unix {
                &[libc::AF_UNIX]
            } else {
                &[]
            })?);
        }
        Some(NetFilter::Domains) => {
            let mut domains = network_rules(&[libc::AF_INET, libc::AF_INET6])?;
            domains
                .get_mut(&libc::SYS_socket)
                .expect("the socket rule")
                .extend(inet_non_stream()?);
            rules.extend(domains);
        }
        None => {}
    }
    compile(rules, libc::EACCES)
}

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
        .map_err(|e| format!("seccomp: {e}"))
}

/// `socket` refused unless its family is netlink or one of `allowed`; io_uring refused.
fn network_rules(allowed: &[i32]) -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
    // The conditions of one rule must all hold: the family is none of the allowed ones.
    let refused = std::iter::once(libc::AF_NETLINK)
        .chain(allowed.iter().copied())
        .map(|family| condition(0, SeccompCmpOp::Ne, family as u64))
        .collect::<Result<Vec<_>, _>>()?;
    let mut rules = BTreeMap::new();
    rules.insert(
        libc::SYS_socket,
        vec![SeccompRule::new(refused).map_err(|e| format!("seccomp: {e}"))?],
    );
    rules.insert(libc::SYS_io_uring_setup, vec![]);
    Ok(rules)
}

/// Every IPv4 or IPv6 socket type but a stream (the type's low bits; its flags above them vary): datagram, raw,
/// reliable datagram, sequenced packet, DCCP and packet.
fn inet_non_stream() -> Result<Vec<SeccompRule>, String> {
    const TYPE_MASK: u64 = 0xf;
    let mut rules = Vec::new();
    for family in [libc::AF_INET, libc::AF_INET6] {
        for kind in [
            libc::SOCK_DGRAM,
            libc::SOCK_RAW,
            libc::SOCK_RDM,
            libc::SOCK_SEQPACKET,
            6,  // SOCK_DCCP
            10, // SOCK_PACKET
        ] {
            let conditions = vec![
                condition(0, SeccompCmpOp::Eq, family as u64)?,
                condition(1, SeccompCmpOp::MaskedEq(TYPE_MASK), kind as u64)?,
            ];
            rules.push(SeccompRule::new(conditions).map_err(|e| format!("seccomp: {e}"))?);
        }
    }
    Ok(rules)
}

/// SysV IPC objects live in the host's namespace when no IPC namespace could be made: no new ones, and none of the
/// host's reached by its id (attached, read, changed or removed).
const SYSV_IPC: &[i64] = &[
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_mq_open,
];

/// Where no namespace is possible: denies every metadata change and all SysV IPC (EPERM).
///
/// # Errors
/// The compiler's message.
pub fn fallback_filter() -> Result<BpfProgram, String> {
    compile(
        METADATA
            .iter()
            .chain(LEGACY_METADATA)
            .chain(SYSV_IPC)
            .map(|&nr| (nr, vec![]))
            .collect(),
        libc::EPERM,
    )
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch()?,
    )
    .map_err(|e| format!("seccomp: {e}"))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))
}

/// Installs `program` on the calling thread (sets no_new_privs first). Returns 0 or an errno.
pub fn apply(program: &BpfProgram) -> i32 {
    match seccompiler::apply_filter(program) {
        Ok(()) => 0,
        Err(seccompiler::Error::Seccomp(e) | seccompiler::Error::Prctl(e)) => {
            e.raw_os_error().unwrap_or(libc::EINVAL)
        }
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
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| format!("seccomp pipe: {e}"))?;
    // A filter is a few hundred bytes, far below a pipe's capacity: the write cannot block.
    rustix::io::write(&write, &bytes).map_err(|e| format!("seccomp pipe: {e}"))?;
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `probe` in a forked child under `program`; the child exits with the probe's result.
    fn under(program: &BpfProgram, probe: fn() -> i32) -> i32 {
        // SAFETY: fork() takes no pointers; the child is handled in the arm below.
        match unsafe { libc::fork() } {
            // SAFETY: the child of a multi-threaded test binary may make only async-signal-safe calls: apply() runs
            // prctl and seccomp on the program built before the fork (no allocation, no lock), the probe makes raw
            // system calls, and _exit leaves without running the parent's destructors or atexit handlers.
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
        typed_socket_errno(domain, libc::SOCK_DGRAM)
    }

    fn typed_socket_errno(domain: i32, kind: i32) -> i32 {
        // SAFETY: socket() takes integers only; a descriptor it returns is ours alone.
        let fd = unsafe { libc::socket(domain, kind, 0) };
        if fd >= 0 {
            // SAFETY: `fd` was just opened here and nothing else holds it, so closing it cannot close another's.
            unsafe { libc::close(fd) };
            return 0;
        }
        std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
    }

    #[test]
    fn the_domains_filter_lets_only_tcp_and_netlink_through() {
        use libc::{AF_INET, AF_INET6, SOCK_CLOEXEC, SOCK_NONBLOCK, SOCK_STREAM};
        let program = command_filter(Some(NetFilter::Domains)).unwrap();
        type Probe = (&'static str, fn() -> i32);
        let allowed: [Probe; 3] = [
            ("tcp", || {
                typed_socket_errno(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK)
            }),
            ("tcp6", || typed_socket_errno(AF_INET6, SOCK_STREAM)),
            ("netlink", || socket_errno(libc::AF_NETLINK)),
        ];
        let refused: [Probe; 7] = [
            ("udp", || socket_errno(AF_INET)),
            ("udp6", || {
                typed_socket_errno(AF_INET6, libc::SOCK_DGRAM | SOCK_CLOEXEC)
            }),
            ("raw", || typed_socket_errno(AF_INET, libc::SOCK_RAW)),
            ("raw6", || {
                typed_socket_errno(AF_INET6, libc::SOCK_RAW | SOCK_NONBLOCK)
            }),
            ("sctp-ish", || {
                typed_socket_errno(AF_INET, libc::SOCK_SEQPACKET)
            }),
            ("unix", || typed_socket_errno(libc::AF_UNIX, SOCK_STREAM)),
            ("packet", || socket_errno(libc::AF_PACKET)),
        ];
        for (name, probe) in allowed {
            assert_eq!(under(&program, probe), 0, "{name}");
        }
        for (name, probe) in refused {
            assert_eq!(under(&program, probe), libc::EACCES, "{name}");
        }
    }

    #[test]
    fn the_network_filter_refuses_inet_and_unix_sockets_but_not_netlink() {
        let program = command_filter(Some(NetFilter::Deny { allow_unix: false })).unwrap();
        assert_eq!(
            under(&program, || socket_errno(libc::AF_INET)),
            libc::EACCES
        );
        assert_eq!(
            under(&program, || socket_errno(libc::AF_INET6)),
            libc::EACCES
        );
        assert_eq!(
            under(&program, || socket_errno(libc::AF_UNIX)),
            libc::EACCES
        );
        assert_eq!(under(&program, || socket_errno(libc::AF_NETLINK)), 0);
    }

    #[test]
    fn allowing_unix_sockets_lets_unix_through_and_nothing_else() {
        let program = command_filter(Some(NetFilter::Deny { allow_unix: true })).unwrap();
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
            let mut params = [0u8; 120];
            // SAFETY: io_uring_setup writes at most a struct io_uring_params (120 bytes) into `params`, which is
            // zeroed (no flags, no reserved bits) and lives across the call.
            let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) };
            if fd >= 0 {
                // SAFETY: the ring descriptor was just made here and nothing else holds it.
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
            if r == 0 {
                0
            } else {
                std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
            }
        };
        assert_eq!(under(&program, chmod), libc::EPERM);
        let shm = || {
            // SAFETY: shmget with constant arguments.
            let r = unsafe { libc::shmget(libc::IPC_PRIVATE, 4096, 0o600) };
            if r >= 0 {
                0
            } else {
                std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
            }
        };
        assert_eq!(under(&program, shm), libc::EPERM);
        let attach = || {
            // SAFETY: shmat of an id nobody holds; only the errno matters (EINVAL unfiltered).
            let r = unsafe { libc::shmat(0x7fff_fff0, std::ptr::null(), 0) };
            if r as isize != -1 {
                0
            } else {
                std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
            }
        };
        assert_eq!(under(&program, attach), libc::EPERM);
        let control = || {
            // SAFETY: shmid_ds is a plain C struct of integers, for which all-zero bytes are a valid value.
            let mut ds: libc::shmid_ds = unsafe { std::mem::zeroed() };
            // SAFETY: IPC_STAT of an id nobody holds writes at most one shmid_ds, into `ds`, which outlives the call.
            let r = unsafe { libc::shmctl(0x7fff_fff0, libc::IPC_STAT, &mut ds) };
            if r >= 0 {
                0
            } else {
                std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
            }
        };
        assert_eq!(under(&program, control), libc::EPERM);
    }

    fn keyctl_errno() -> i32 {
        // SAFETY: KEYCTL_GET_KEYRING_ID (0) of the user keyring (-4), without creating it; only the errno matters.
        let r = unsafe { libc::syscall(libc::SYS_keyctl, 0, -4i32, 0) };
        if r >= 0 {
            0
        } else {
            std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
        }
    }

    #[test]
    fn every_command_filter_refuses_the_keyrings_and_only_a_denied_network_refuses_sockets() {
        assert_eq!(keyctl_errno(), 0, "the keyring call works unfiltered");
        for network in [None, Some(NetFilter::Deny { allow_unix: false })] {
            assert_eq!(
                under(&command_filter(network).unwrap(), keyctl_errno),
                libc::EACCES
            );
        }
        assert_eq!(
            under(&command_filter(None).unwrap(), || socket_errno(
                libc::AF_INET
            )),
            0
        );
    }

    #[test]
    fn the_program_bytes_are_eight_per_instruction() {
        let program = command_filter(Some(NetFilter::Deny { allow_unix: false })).unwrap();
        let fd = program_fd(&program).unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::fs::File::from(fd), &mut bytes).unwrap();
        assert_eq!(bytes.len(), program.len() * 8);
    }
}
