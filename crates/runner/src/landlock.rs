//! Landlock, through its three system calls: which ABI this kernel offers, and a ruleset that allows reads
//! everywhere and writes only beneath the granted paths (plus TCP and scoping limits where the ABI has them).

use std::ffi::CString;

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

pub const FS_EXECUTE: u64 = 1 << 0;
pub const FS_WRITE_FILE: u64 = 1 << 1;
pub const FS_READ_FILE: u64 = 1 << 2;
pub const FS_READ_DIR: u64 = 1 << 3;
const FS_ABI1_ALL: u64 = (1 << 13) - 1;
const FS_REFER: u64 = 1 << 13;
const FS_TRUNCATE: u64 = 1 << 14;
const FS_IOCTL_DEV: u64 = 1 << 15;
const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

/// The first ABI whose file rights cover everything a write policy needs (rename across directories, truncate).
const ABI_FULL_FS: i64 = 3;
const ABI_NET: i64 = 4;
const ABI_IOCTL_DEV: i64 = 5;
const ABI_SCOPE: i64 = 6;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version of the running kernel; 0 when Landlock is off or absent.
pub fn abi() -> i64 {
    // SAFETY: a NULL attribute with size 0 and the VERSION flag only queries the version.
    let v = unsafe {
        libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<RulesetAttr>(), 0usize, CREATE_RULESET_VERSION)
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

fn fs_rights(abi: i64) -> u64 {
    let mut rights = FS_ABI1_ALL;
    if abi >= 2 {
        rights |= FS_REFER;
    }
    if abi >= ABI_FULL_FS {
        rights |= FS_TRUNCATE;
    }
    if abi >= ABI_IOCTL_DEV {
        rights |= FS_IOCTL_DEV;
    }
    rights
}

/// Device files every shell writes to; they hold no data, so write access to them is no escape.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

pub struct Policy {
    pub writable: Vec<String>,
    pub deny_network: bool,
}

/// Prepared before fork (allocation is not safe after it): the ruleset fd, ready to enforce.
pub struct Ruleset {
    fd: libc::c_int,
}

impl Ruleset {
    /// Builds the ruleset: read and execute everywhere, every file right beneath `writable`.
    ///
    /// # Errors
    /// The failing step and its OS error; the command must then not run.
    pub fn build(abi: i64, policy: &Policy) -> Result<Ruleset, String> {
        if abi < 1 {
            return Err("landlock: not supported by this kernel".into());
        }
        let handled = fs_rights(abi);
        let attr = RulesetAttr {
            handled_access_fs: handled,
            handled_access_net: if policy.deny_network && abi >= ABI_NET { NET_BIND_TCP | NET_CONNECT_TCP } else { 0 },
            scoped: if abi >= ABI_SCOPE { SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL } else { 0 },
        };
        // Older ABIs know only a prefix of the attribute; passing more non-zero fields would fail with E2BIG.
        let size = if abi >= ABI_SCOPE { 24 } else if abi >= ABI_NET { 16 } else { 8 };
        // SAFETY: attr lives across the call and size does not exceed it.
        let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr as *const RulesetAttr, size, 0u32) };
        if fd < 0 {
            return Err(format!("landlock_create_ruleset: {}", std::io::Error::last_os_error()));
        }
        let ruleset = Ruleset { fd: fd as libc::c_int };
        ruleset.allow("/", FS_READ_FILE | FS_READ_DIR | FS_EXECUTE)?;
        let file_rights = FS_READ_FILE | FS_WRITE_FILE | (handled & (FS_TRUNCATE | FS_IOCTL_DEV));
        for device in WRITABLE_DEVICES {
            if std::path::Path::new(device).exists() {
                ruleset.allow(device, file_rights)?;
            }
        }
        for path in &policy.writable {
            ruleset.allow(path, handled)?;
        }
        Ok(ruleset)
    }

    fn allow(&self, path: &str, rights: u64) -> Result<(), String> {
        let c = CString::new(path).map_err(|_| format!("landlock: path {path:?} contains a NUL byte"))?;
        // SAFETY: c is a valid C string; O_PATH opens without reading.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(format!("landlock: open {path}: {}", std::io::Error::last_os_error()));
        }
        let is_dir = std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false);
        // Directory-only rights on a file make the kernel refuse the rule.
        let rights = if is_dir { rights } else { rights & (FS_READ_FILE | FS_WRITE_FILE | FS_EXECUTE | FS_TRUNCATE | FS_IOCTL_DEV) };
        let attr = PathBeneathAttr { allowed_access: rights, parent_fd: fd };
        // SAFETY: attr lives across the call.
        let r = unsafe {
            libc::syscall(libc::SYS_landlock_add_rule, self.fd, RULE_PATH_BENEATH, &attr as *const PathBeneathAttr, 0u32)
        };
        let err = std::io::Error::last_os_error();
        // SAFETY: fd came from the open above and is closed once.
        unsafe { libc::close(fd) };
        if r != 0 {
            return Err(format!("landlock_add_rule {path}: {err}"));
        }
        Ok(())
    }

    /// Enforces the ruleset on the calling thread and its future children. Async-signal-safe (one syscall),
    /// so it can run between fork and exec. Returns 0 or an errno.
    pub fn restrict_self(&self) -> i32 {
        // SAFETY: a plain syscall on an fd we own.
        let r = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, self.fd, 0u32) };
        if r == 0 {
            0
        } else {
            // SAFETY: reads this thread's errno, right after the failed call.
            unsafe { *libc::__errno_location() }
        }
    }
}
