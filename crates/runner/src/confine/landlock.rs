//! Landlock through the Landlock maintainers' `landlock` crate: a ruleset that allows reads everywhere (host view)
//! or only in the session view, and writes only beneath the granted paths (plus TCP and scoping limits where the
//! kernel's ABI has them).

use std::cell::Cell;
use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::OnceLock;

use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset as Rules,
    RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};

use super::view;
use crate::wire::plan::{Plan, View};

/// The newest ABI whose rights this policy uses: file rights through ioctl on devices (5), TCP (4), scoping (6).
/// Older kernels get the subset they know (best effort); `enforcement` says what that leaves out.
const TARGET: ABI = ABI::V6;
const ABI_FULL_FS: i64 = 3;
const ABI_NET: i64 = 4;
const ABI_SCOPE: i64 = 6;

/// The Landlock ABI version of the running kernel; 0 when Landlock is off or absent. (The crate keeps its own
/// detection private on purpose, so rules do not vary with the kernel; we only report it.)
pub fn abi() -> i64 {
    // SAFETY: a NULL attribute with size 0 and the VERSION flag (1) only queries the version.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    v.max(0)
}

/// What this kernel can enforce for a policy: `full`, or `partial` when a right we would restrict is unknown
/// to its ABI (then that operation stays unrestricted).
pub fn enforcement(abi: i64, deny_network: bool) -> &'static str {
    let fs = abi >= ABI_FULL_FS;
    let net = !deny_network || abi >= ABI_NET;
    if fs && net && abi >= ABI_SCOPE {
        "full"
    } else {
        "partial"
    }
}

/// What bubblewrap enforces for a policy: `full`, or `partial` when it runs in the host's network namespace on a
/// kernel without Landlock's abstract-socket scoping (then the host's abstract unix sockets stay reachable).
pub fn bubblewrap_enforcement(abi: i64, deny_network: bool) -> &'static str {
    if deny_network || abi >= ABI_SCOPE {
        "full"
    } else {
        "partial"
    }
}

/// Device files every shell writes to; they hold no data, so write access to them is no escape.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

#[derive(Clone, PartialEq, Eq)]
pub struct Policy {
    pub writable: Vec<String>,
    pub deny_network: bool,
    /// Reads confined to the session view: the system, the emptied places and these paths (else reads anywhere).
    pub session: Option<Vec<String>>,
}

impl Policy {
    /// The policy of a plan's command.
    pub fn of(plan: &Plan) -> Policy {
        Policy {
            writable: plan.writable.clone(),
            deny_network: plan.deny_network,
            session: (plan.view == View::Session).then(|| plan.readable.clone()),
        }
    }
}

/// The ruleset a session sandbox's fork server built once for every runner it forks (see `Ruleset::prepare`), with
/// the policy it enforces.
static PREPARED: OnceLock<(Policy, OwnedFd)> = OnceLock::new();

/// Prepared before fork (allocation is not safe after it): the created ruleset, ready to enforce once.
pub struct Ruleset {
    fd: Cell<Option<OwnedFd>>,
    /// Made readable in the child, once its namespace exists: the empty tmpfs over each emptied place and the pid
    /// namespace's /proc are new mounts, and a rule on the directory beneath them does not reach across.
    late: Vec<CString>,
}

/// Landlock's read rights of ABI 1 (execute, read file, read directory): handled by every ruleset we build.
const READ_BITS: u64 = 1 | 4 | 8;
const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;

/// `landlock_ruleset_attr` of ABI 6: handled file and network rights, and scopes.
#[repr(C)]
struct RulesetAttr6 {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}
const LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1;

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

impl Ruleset {
    /// Builds `policy`'s ruleset once, late rules included, for every runner this process forks: a session sandbox's
    /// fork server, which stands in its view already (the mounts the late rules name are its own). Each runner then
    /// enforces a copy of it (`build` hands out the prepared one for the same policy), so no command walks the
    /// policy's paths again; landlock_restrict_self makes each one's domain from the ruleset as it is.
    ///
    /// # Errors
    /// The failing step and its error.
    pub fn prepare(abi: i64, policy: &Policy) -> Result<(), String> {
        let ruleset = Ruleset::build(abi, policy)?;
        let errno = ruleset.add_late_rules();
        if errno != 0 {
            return Err(format!(
                "landlock: {}",
                std::io::Error::from_raw_os_error(errno)
            ));
        }
        let fd = ruleset.fd.take().ok_or("landlock: no ruleset")?;
        PREPARED
            .set((policy.clone(), fd))
            .map_err(|_| "landlock: a ruleset is prepared already".to_string())
    }

    /// Builds the ruleset: read and execute everywhere (or in the session view), every file right beneath
    /// `writable`; for the policy of a prepared ruleset, a copy of that one's descriptor, with nothing left to add.
    ///
    /// # Errors
    /// The failing step and its error; the command must then not run.
    pub fn build(abi: i64, policy: &Policy) -> Result<Ruleset, String> {
        if let Some((_, prepared)) = PREPARED.get().filter(|(known, _)| known == policy) {
            let fd = prepared
                .as_fd()
                .try_clone_to_owned()
                .map_err(|e| format!("landlock: {e}"))?;
            return Ok(Ruleset {
                fd: Cell::new(Some(fd)),
                late: Vec::new(),
            });
        }
        if abi < 1 {
            return Err("landlock: not supported by this kernel".into());
        }
        let fail = |e: landlock::RulesetError| format!("landlock: {e}");
        let mut rules = Rules::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(TARGET))
            .map_err(fail)?;
        if policy.deny_network {
            rules = rules
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .map_err(fail)?;
        }
        rules = rules
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(fail)?;
        let mut created = rules.create().map_err(fail)?;
        let read = AccessFs::from_read(TARGET);
        match &policy.session {
            None => {
                created = created
                    .add_rule(PathBeneath::new(open("/")?, read))
                    .map_err(fail)?
            }
            Some(readable) => {
                // A rule holds for the inode it names and what lies beneath, across mounts: the empty tmpfs over an
                // emptied place and the fresh /proc of the pid namespace are reached through these very directories.
                let shown = view::existing(view::SYSTEM)
                    .chain(view::existing(view::EMPTIED))
                    .chain(["/sys", "/proc"]);
                let own = readable
                    .iter()
                    .map(String::as_str)
                    .filter(|p| Path::new(p).exists());
                for path in shown.chain(own).chain(view::existing(view::DEVICES)) {
                    created = created
                        .add_rule(PathBeneath::new(open(path)?, read))
                        .map_err(fail)?;
                }
                // Listing /dev names devices; reading one needs a rule of its own.
                created = created
                    .add_rule(PathBeneath::new(open("/dev")?, AccessFs::ReadDir))
                    .map_err(fail)?;
            }
        }
        for device in WRITABLE_DEVICES {
            if Path::new(device).exists() {
                let rights = AccessFs::ReadFile
                    | AccessFs::WriteFile
                    | AccessFs::Truncate
                    | AccessFs::IoctlDev;
                created = created
                    .add_rule(PathBeneath::new(open(device)?, rights))
                    .map_err(fail)?;
            }
        }
        for path in &policy.writable {
            created = created
                .add_rule(PathBeneath::new(open(path)?, AccessFs::from_all(TARGET)))
                .map_err(fail)?;
        }
        let fd: Option<OwnedFd> = created.into();
        let fd = fd.ok_or("landlock: not supported by this kernel")?;
        let late = match &policy.session {
            None => Vec::new(),
            Some(_) => view::existing(view::EMPTIED)
                .chain(["/proc"])
                .map(|p| CString::new(p).expect("no NUL"))
                .collect(),
        };
        Ok(Ruleset {
            fd: Cell::new(Some(fd)),
            late,
        })
    }

    /// A ruleset that handles no file or network right and only scopes abstract unix sockets: a process under it
    /// connects to none made outside its domain (the host's, another sandbox's), and its own still work. Confines
    /// bubblewrap, which shares the host's network namespace (and so its abstract sockets) unless the network is
    /// denied. None on a kernel without scoping (ABI before 6).
    ///
    /// # Errors
    /// The kernel's refusal to create it.
    pub fn abstract_unix_scope(abi: i64) -> Result<Option<Ruleset>, String> {
        if abi < ABI_SCOPE {
            return Ok(None);
        }
        let attr = RulesetAttr6 {
            handled_access_fs: 0,
            handled_access_net: 0,
            scoped: LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
        };
        // SAFETY: an attribute struct that lives across the call, with its exact size; no flags.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr6,
                std::mem::size_of::<RulesetAttr6>(),
                0u32,
            )
        };
        if fd < 0 {
            return Err(format!(
                "landlock: scope: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
        Ok(Some(Ruleset {
            fd: Cell::new(Some(fd)),
            late: Vec::new(),
        }))
    }

    /// Adds the read rules of the mounts the child made (see `late`). Between fork and exec; returns 0 or an errno.
    pub fn add_late_rules(&self) -> i32 {
        let Some(ruleset) = self.fd.take() else {
            return libc::EALREADY;
        };
        let mut errno = 0;
        for path in &self.late {
            // SAFETY: open with O_PATH of a C string; the descriptor is closed below.
            let dir = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
            if dir < 0 {
                errno = std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EINVAL);
                break;
            }
            let attr = PathBeneathAttr {
                allowed_access: READ_BITS,
                parent_fd: dir,
            };
            // SAFETY: a valid ruleset descriptor and an attribute that lives across the call.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset.as_raw_fd(),
                    LANDLOCK_RULE_PATH_BENEATH,
                    &attr as *const PathBeneathAttr,
                    0u32,
                )
            };
            if r != 0 {
                errno = std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EINVAL);
            }
            // SAFETY: our own descriptor.
            unsafe { libc::close(dir) };
            if errno != 0 {
                break;
            }
        }
        self.fd.set(Some(ruleset));
        errno
    }

    /// Enforces the ruleset on the calling thread and its future children, once (no_new_privs is set by the
    /// capability drop that runs first). Between fork and exec: one system call, no allocation. Returns 0 or an
    /// errno.
    pub fn restrict_self(&self) -> i32 {
        let Some(ruleset) = self.fd.take() else {
            return libc::EALREADY;
        };
        // SAFETY: a valid ruleset descriptor and no flags.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) }
            == 0
        {
            0
        } else {
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EPERM)
        }
    }
}

fn open(path: &str) -> Result<PathFd, String> {
    PathFd::new(path).map_err(|e| format!("landlock: open {path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enforcement_names_what_the_abi_leaves_out() {
        assert_eq!(enforcement(7, true), "full");
        assert_eq!(enforcement(6, false), "full");
        assert_eq!(enforcement(5, false), "partial");
        assert_eq!(enforcement(3, true), "partial");
        assert_eq!(bubblewrap_enforcement(6, false), "full");
        assert_eq!(bubblewrap_enforcement(5, true), "full");
        assert_eq!(bubblewrap_enforcement(5, false), "partial");
    }

    #[test]
    fn a_prepared_ruleset_is_handed_out_for_its_policy_alone() {
        let abi = abi();
        if abi < 1 {
            return;
        }
        let dir = std::env::temp_dir().join(format!("shellring-prepared-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let policy = Policy {
            writable: vec![dir.to_string_lossy().into_owned()],
            deny_network: true,
            session: None,
        };
        Ruleset::prepare(abi, &policy).unwrap();
        assert!(Ruleset::prepare(abi, &policy).is_err(), "prepared once");
        let other = Policy {
            deny_network: false,
            ..policy.clone()
        };
        let fd = |r: &Ruleset| {
            let fd = r.fd.take().unwrap();
            let raw = fd.as_raw_fd();
            r.fd.set(Some(fd));
            raw
        };
        // The same open ruleset (kcmp: one file description) for the prepared policy, its own for any other.
        let same = |a: i32, b: i32| {
            let me = std::process::id();
            // SAFETY: kcmp compares two descriptors of this process; it reads no memory of ours.
            unsafe { libc::syscall(libc::SYS_kcmp, me, me, 0, a, b) == 0 }
        };
        let prepared = PREPARED.get().unwrap().1.as_raw_fd();
        let (a, b) = (
            Ruleset::build(abi, &policy).unwrap(),
            Ruleset::build(abi, &policy).unwrap(),
        );
        assert!(same(fd(&a), prepared) && same(fd(&b), prepared));
        assert_ne!(fd(&a), fd(&b), "each runner its own descriptor");
        assert!(!same(fd(&Ruleset::build(abi, &other).unwrap()), prepared));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_ruleset_confines_writes_to_its_roots_in_a_forked_child() {
        let abi = abi();
        if abi < 1 {
            // A kernel without Landlock: build refuses (the host then fails closed); nothing else to check.
            assert!(Ruleset::build(
                abi,
                &Policy {
                    writable: vec![],
                    deny_network: false,
                    session: None
                }
            )
            .is_err());
            return;
        }
        let base = std::env::temp_dir().join(format!("shellring-landlock-{}", std::process::id()));
        let (inside, outside) = (base.join("in"), base.join("out"));
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let policy = Policy {
            writable: vec![inside.to_string_lossy().into_owned()],
            deny_network: false,
            session: None,
        };
        let ruleset = Ruleset::build(abi, &policy).unwrap();
        let (a, b) = (
            std::ffi::CString::new(inside.join("f").to_string_lossy().as_bytes()).unwrap(),
            std::ffi::CString::new(outside.join("f").to_string_lossy().as_bytes()).unwrap(),
        );
        // SAFETY: fork() takes no pointers; the child is handled in the arm below.
        let status = match unsafe { libc::fork() } {
            // SAFETY: the child of a multi-threaded test binary may make only async-signal-safe calls: prctl,
            // landlock_restrict_self and open on paths built before the fork (no allocation, no lock), then _exit,
            // which leaves without running the parent's destructors or atexit handlers.
            0 => unsafe {
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                if ruleset.restrict_self() != 0 {
                    libc::_exit(10);
                }
                if ruleset.restrict_self() != libc::EALREADY {
                    libc::_exit(13);
                }
                let ok = |path: &std::ffi::CString| {
                    libc::open(path.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o600) >= 0
                };
                libc::_exit(match (ok(&a), ok(&b)) {
                    (true, false) => 0,
                    (false, _) => 11,
                    (true, true) => 12,
                });
            },
            pid => {
                let mut status = 0;
                // SAFETY: waits for our own child.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                libc::WEXITSTATUS(status)
            }
        };
        let _ = std::fs::remove_dir_all(&base);
        assert_eq!(
            status, 0,
            "10: restrict failed, 11: inside refused, 12: outside allowed, 13: enforced twice"
        );
    }

    #[test]
    fn the_abstract_socket_scope_refuses_the_hosts_sockets_and_keeps_its_own() {
        let abi = abi();
        let Some(scope) = Ruleset::abstract_unix_scope(abi).unwrap() else {
            assert!(abi < ABI_SCOPE);
            return;
        };
        let address = |name: &[u8]| {
            // SAFETY: a zeroed sockaddr_un is a valid value; the name fits in sun_path.
            let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
            addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
            for (slot, byte) in addr.sun_path[1..].iter_mut().zip(name) {
                *slot = *byte as libc::c_char;
            }
            (
                addr,
                (std::mem::size_of::<libc::sa_family_t>() + 1 + name.len()) as u32,
            )
        };
        let host_name = format!("shellring-scope-host-{}", std::process::id());
        let own_name = format!("shellring-scope-own-{}", std::process::id());
        let (host, host_len) = address(host_name.as_bytes());
        let (own, own_len) = address(own_name.as_bytes());
        let listen = |addr: &libc::sockaddr_un, len: u32| {
            // SAFETY: socket, bind and listen on a local address that lives across the calls.
            unsafe {
                let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                let bound = libc::bind(fd, (addr as *const libc::sockaddr_un).cast(), len) == 0;
                (fd, bound && libc::listen(fd, 1) == 0)
            }
        };
        let (listener, listening) = listen(&host, host_len);
        assert!(listening);
        // SAFETY: fork() takes no pointers; the child is handled in the arm below.
        let status = match unsafe { libc::fork() } {
            // SAFETY: the child makes only async-signal-safe calls (prctl, landlock_restrict_self, socket calls on
            // addresses built before the fork), then _exit.
            0 => unsafe {
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                if scope.restrict_self() != 0 {
                    libc::_exit(10);
                }
                let reach = |addr: &libc::sockaddr_un, len: u32| {
                    let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                    libc::connect(fd, (addr as *const libc::sockaddr_un).cast(), len) == 0
                };
                let (_, own_listening) = listen(&own, own_len);
                libc::_exit(
                    match (
                        reach(&host, host_len),
                        own_listening && reach(&own, own_len),
                    ) {
                        (false, true) => 0,
                        (true, _) => 11,
                        (false, false) => 12,
                    },
                );
            },
            pid => {
                let mut status = 0;
                // SAFETY: waits for our own child.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                libc::WEXITSTATUS(status)
            }
        };
        // SAFETY: our own descriptor.
        unsafe { libc::close(listener) };
        assert_eq!(
            status, 0,
            "10: restrict failed, 11: the host's socket reached, 12: its own refused"
        );
    }
}
