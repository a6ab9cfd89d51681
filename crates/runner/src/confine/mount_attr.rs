//! mount_setattr(2), which rustix does not wrap: the attributes the mount layers set on a tree of mounts.

use std::ffi::CStr;
use std::os::fd::{AsRawFd, OwnedFd};

pub const RDONLY: u64 = 0x1;
pub const NOSUID: u64 = 0x2;
pub const IDMAP: u64 = 0x0010_0000;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Sets the attributes `set` on `path` (relative to `dirfd`) and every mount below it; `userns` is the user namespace
/// whose id mapping `IDMAP` applies. Between fork and exec: one system call.
///
/// # Errors
/// The kernel's refusal.
pub fn set(
    dirfd: libc::c_int,
    path: &CStr,
    flags: libc::c_uint,
    set: u64,
    userns: Option<&OwnedFd>,
) -> rustix::io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: 0,
        propagation: 0,
        userns_fd: userns.map_or(0, |fd| fd.as_raw_fd() as u64),
    };
    // SAFETY: a valid path and an attribute struct that lives across the call, with its exact size.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dirfd,
            path.as_ptr(),
            flags | libc::AT_RECURSIVE as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(rustix::io::Errno::from_raw_os_error(
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EINVAL),
        ))
    }
}
