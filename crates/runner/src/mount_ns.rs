//! The layer Landlock lacks: a private mount namespace where every mount is read-only (so no change of mode,
//! owner, times or extended attributes lands outside the writable roots, and the kernel's /proc/sys, /sys and
//! cgroupfs cannot be written), the writable roots bound back read-write, the runtime's state hidden under empty
//! tmpfs, and private IPC (and, with the network denied, network) namespaces. Entered directly when the runner is
//! root; through a user namespace that maps only the caller's own ids otherwise.

use std::ffi::{CStr, CString};
use std::os::fd::{AsFd, OwnedFd};

use rustix::fs::{Mode, OFlags, CWD};
use rustix::mount::{MountFlags, MountPropagationFlags, MoveMountFlags, OpenTreeFlags};
use rustix::thread::UnshareFlags;

/// Writable roots one command may have; a fixed bound keeps the forked child free of allocation.
pub const MAX_WRITABLE: usize = 16;

/// Everything the child needs, built before the fork: after it, only system calls run.
pub struct Prepared {
    writable: Vec<CString>,
    hidden: Vec<CString>,
    /// Directories made inside a hiding tmpfs, parents first, so a writable root below it has a mount point.
    mountpoints: Vec<CString>,
    cwd: Option<CString>,
    uid_map: CString,
    gid_map: CString,
    deny_network: bool,
    as_root: bool,
}

/// The steps of `enter`, named in the runner's report when one fails.
pub const STEPS: &[&str] = &[
    "unshare", "setgroups", "uid_map", "gid_map", "make / private", "open_tree", "hide state", "mkdir mount point",
    "mount_setattr", "move_mount", "chdir",
];

/// Which step failed (an index into `STEPS`) and its errno.
pub struct Failure {
    pub step: usize,
    pub errno: i32,
}

impl Failure {
    /// No namespace can be made here at all (as opposed to one that failed half-way).
    pub fn unavailable(&self) -> bool {
        self.step == 0
    }
}

/// # Errors
/// A message when a path cannot be passed to the kernel or there are too many writable roots.
pub fn prepare(writable: &[String], hidden: &[String], deny_network: bool) -> Result<Prepared, String> {
    if writable.len() > MAX_WRITABLE {
        return Err(format!("sandbox: at most {MAX_WRITABLE} writable roots"));
    }
    let c = |p: &str| CString::new(p).map_err(|_| format!("sandbox: path {p:?} contains a NUL byte"));
    let mut mountpoints = Vec::new();
    for root in writable {
        for hide in hidden {
            if let Some(rest) = root.strip_prefix(hide.as_str()).and_then(|r| r.strip_prefix('/')) {
                let mut path = hide.clone();
                for part in rest.split('/').filter(|p| !p.is_empty()) {
                    path.push('/');
                    path.push_str(part);
                    mountpoints.push(c(&path)?);
                }
            }
        }
    }
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    Ok(Prepared {
        writable: writable.iter().map(|p| c(p)).collect::<Result<_, _>>()?,
        hidden: hidden.iter().map(|p| c(p)).collect::<Result<_, _>>()?,
        mountpoints,
        cwd: std::env::current_dir().ok().and_then(|d| CString::new(d.into_os_string().into_encoded_bytes()).ok()),
        uid_map: CString::new(format!("{uid} {uid} 1")).expect("digits"),
        gid_map: CString::new(format!("{gid} {gid} 1")).expect("digits"),
        deny_network,
        as_root: rustix::process::geteuid().is_root(),
    })
}

impl Prepared {
    /// Enters the namespaces and builds the view. Call in the forked child, before dropping capabilities.
    ///
    /// # Errors
    /// The failing step; `unshare` failing means no namespace is possible here (the caller may fall back).
    pub fn enter(&self) -> Result<(), Failure> {
        let mut flags = UnshareFlags::NEWNS | UnshareFlags::NEWIPC;
        if self.deny_network {
            flags |= UnshareFlags::NEWNET;
        }
        // Root (with CAP_SYS_ADMIN) needs no user namespace; without it, one that maps only our own ids does.
        // SAFETY: the runner's child is single-threaded and shares no file-system state with another thread.
        let direct = self.as_root && unsafe { rustix::thread::unshare_unsafe(flags) }.is_ok();
        if !direct {
            // SAFETY: as above.
            unsafe { rustix::thread::unshare_unsafe(flags | UnshareFlags::NEWUSER) }.map_err(fail("unshare"))?;
            write_file(c"/proc/self/setgroups", b"deny").map_err(fail("setgroups"))?;
            write_file(c"/proc/self/uid_map", self.uid_map.as_bytes()).map_err(fail("uid_map"))?;
            write_file(c"/proc/self/gid_map", self.gid_map.as_bytes()).map_err(fail("gid_map"))?;
        }
        rustix::mount::mount_change(c"/", MountPropagationFlags::PRIVATE | MountPropagationFlags::REC)
            .map_err(fail("make / private"))?;
        // Detached read-write copies of each root, taken before anything turns read-only.
        let mut clones: [Option<OwnedFd>; MAX_WRITABLE] = Default::default();
        for (slot, root) in clones.iter_mut().zip(&self.writable) {
            let flags = OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::AT_RECURSIVE | OpenTreeFlags::OPEN_TREE_CLOEXEC;
            *slot = Some(rustix::mount::open_tree(CWD, root.as_c_str(), flags).map_err(fail("open_tree"))?);
        }
        for path in &self.hidden {
            let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
            rustix::mount::mount(c"tmpfs", path.as_c_str(), c"tmpfs", flags, Some(c"mode=0700"))
                .map_err(fail("hide state"))?;
        }
        for dir in &self.mountpoints {
            match rustix::fs::mkdir(dir.as_c_str(), Mode::RWXU) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(fail("mkdir mount point")(e)),
            }
        }
        read_only_everywhere().map_err(fail("mount_setattr"))?;
        for (clone, root) in clones.iter().zip(&self.writable) {
            let Some(clone) = clone else { break };
            rustix::mount::move_mount(clone.as_fd(), c"", CWD, root.as_c_str(), MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH)
                .map_err(fail("move_mount"))?;
        }
        // The working directory still names the old, now read-only, mount: look it up again.
        if let Some(cwd) = &self.cwd {
            rustix::process::chdir(cwd.as_c_str()).map_err(fail("chdir"))?;
        }
        Ok(())
    }
}

fn fail(step: &'static str) -> impl Fn(rustix::io::Errno) -> Failure {
    let step = STEPS.iter().position(|s| *s == step).unwrap_or(0);
    move |e| Failure { step, errno: e.raw_os_error() }
}

fn write_file(path: &CStr, bytes: &[u8]) -> rustix::io::Result<()> {
    let fd = rustix::fs::open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    rustix::io::write(fd, bytes).map(|_| ())
}

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;

/// Every mount of this namespace read-only and nosuid, in one call (rustix has no mount_setattr wrapper).
fn read_only_everywhere() -> rustix::io::Result<()> {
    let attr = MountAttr { attr_set: MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, attr_clr: 0, propagation: 0, userns_fd: 0 };
    // SAFETY: a valid path and an attribute struct that lives across the call, with its exact size.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c"/".as_ptr(),
            libc::AT_RECURSIVE as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(rustix::io::Errno::from_raw_os_error(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writable_root_below_a_hidden_directory_gets_its_mount_points() {
        let p = prepare(&["/state/tmp/s1".into(), "/ws".into()], &["/state/tmp".into(), "/spill".into()], true).unwrap();
        let points: Vec<_> = p.mountpoints.iter().map(|c| c.to_str().unwrap()).collect();
        assert_eq!(points, ["/state/tmp/s1"]);
        assert!(p.deny_network);
        let uid = rustix::process::getuid().as_raw();
        assert_eq!(p.uid_map.to_str().unwrap(), format!("{uid} {uid} 1"));
    }

    #[test]
    fn a_hidden_prefix_is_matched_by_whole_components() {
        let p = prepare(&["/state/tmpfoo".into()], &["/state/tmp".into()], false).unwrap();
        assert!(p.mountpoints.is_empty());
    }

    #[test]
    fn too_many_roots_or_a_nul_byte_are_refused() {
        let many: Vec<String> = (0..=MAX_WRITABLE).map(|i| format!("/w{i}")).collect();
        assert!(prepare(&many, &[], false).is_err());
        assert!(prepare(&["/a\0b".into()], &[], false).err().unwrap().contains("NUL"));
    }
}
