//! Root-only files stay root-only: a command confined by a root runner keeps uid 0 (its writable roots are root's
//! too) and holds no capability, yet root owns the system's files, so their owner bits would let it read
//! `/etc/ssl/private` or any 0600 file under `/etc` or `/opt`. The system's trees are therefore shown through
//! idmapped mounts whose mapping leaves uid and gid 0 out: root's files there belong to nobody the command is, and
//! only their bits for others count, as for any other user. Only the trees the view shows read-only are mapped; the
//! writable roots, the spill directory and the other paths bound back keep their owners.

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

use rustix::mount::{MountPropagationFlags, MoveMountFlags, OpenTreeFlags};
use rustix::thread::UnshareFlags;

use super::{mount_attr, view};
use crate::failure::Failed;
use crate::wire::stage;

/// Every id but 0, each to itself: root's files and groups map to no one.
const ALL_BUT_ROOT: &str = "1 1 4294967294\n";
/// A process of the initial user namespace sees every id as itself.
const INITIAL_MAP: &str = "0 0 4294967295";

/// The step `mount_ns::STEPS` names a failure of this layer by.
pub const STEP: &str = "idmap";

/// The trees to map and the user namespace whose mapping they are seen through, made before the fork.
pub struct SystemIdmap {
    userns: OwnedFd,
    trees: Vec<CString>,
}

/// The idmap for a runner that is root of the initial user namespace, where root owns the host's files; None for any
/// other runner (its own files are its user's, and an idmap is not its to make).
///
/// # Errors
/// The stage detail of the failed step: a root runner whose view cannot hide root's files runs nothing.
pub fn prepare() -> Result<Option<SystemIdmap>, String> {
    if !rustix::process::geteuid().is_root() || !initial_user_namespace() {
        return Ok(None);
    }
    let fail = |errno: i32| Failed::naming(stage::NAMESPACE, errno, STEP).detail();
    // A tree that is a link (a merged /usr's /bin) is mapped where it leads.
    let trees = view::SYSTEM
        .iter()
        .filter(|tree| std::fs::symlink_metadata(tree).is_ok_and(|meta| meta.is_dir()))
        .map(|tree| CString::new(*tree).expect("no NUL"))
        .collect();
    let userns = userns_without_root().map_err(fail)?;
    Ok(Some(SystemIdmap { userns, trees }))
}

impl SystemIdmap {
    /// Replaces each tree by an idmapped copy of itself, in the caller's own mount namespace (private already).
    /// Between fork and exec: system calls only. Returns 0 or the errno.
    pub fn apply(&self) -> i32 {
        for tree in &self.trees {
            let flags = OpenTreeFlags::OPEN_TREE_CLONE
                | OpenTreeFlags::AT_RECURSIVE
                | OpenTreeFlags::OPEN_TREE_CLOEXEC;
            let clone = match rustix::mount::open_tree(rustix::fs::CWD, tree.as_c_str(), flags) {
                Ok(fd) => fd,
                Err(e) => return e.raw_os_error(),
            };
            let flags = libc::AT_EMPTY_PATH as libc::c_uint;
            let idmapped = mount_attr::set(
                clone.as_raw_fd(),
                c"",
                flags,
                mount_attr::IDMAP,
                Some(&self.userns),
            );
            if let Err(e) = idmapped {
                return e.raw_os_error();
            }
            if let Err(e) = rustix::mount::move_mount(
                clone.as_fd(),
                c"",
                rustix::fs::CWD,
                tree.as_c_str(),
                MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
            ) {
                return e.raw_os_error();
            }
        }
        0
    }

    /// For bubblewrap, which builds its view from the runner's mounts: a private mount namespace of the caller's own,
    /// then `apply`. Between fork and exec; returns 0 or the errno.
    pub fn enter(&self) -> i32 {
        // SAFETY: called in a single-threaded process (a forked child, or the runner about to exec bubblewrap).
        if let Err(e) = unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWNS) } {
            return e.raw_os_error();
        }
        // Private first: the host's mounts are shared, and a move onto them would reach the host.
        if let Err(e) = rustix::mount::mount_change(
            c"/",
            MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
        ) {
            return e.raw_os_error();
        }
        self.apply()
    }
}

fn initial_user_namespace() -> bool {
    std::fs::read_to_string("/proc/self/uid_map")
        .is_ok_and(|map| map.split_whitespace().collect::<Vec<_>>().join(" ") == INITIAL_MAP)
}

/// A user namespace mapping every id but 0 to itself: a child unshares it and waits while this process writes its
/// maps (root of the parent namespace may) and keeps a descriptor of it; the child then exits.
fn userns_without_root() -> Result<OwnedFd, i32> {
    // One at a time: a child forked meanwhile by another thread would hold a copy of this call's `go` pipe, and
    // each child would wait for the other's copy to close.
    static FORKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = FORKING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (ready_read, ready_write) =
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| e.raw_os_error())?;
    let (go_read, go_write) =
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| e.raw_os_error())?;
    // SAFETY: the child makes only async-signal-safe calls (unshare, write, read, _exit).
    let child = unsafe { libc::fork() };
    if child < 0 {
        return Err(errno());
    }
    if child == 0 {
        // SAFETY: as above; the child never returns.
        unsafe {
            // The fork copied this process's end too: closed here, the read below sees it go.
            libc::close(go_write.as_raw_fd());
            let made = libc::unshare(libc::CLONE_NEWUSER) == 0;
            libc::write(ready_write.as_raw_fd(), [u8::from(made)].as_ptr().cast(), 1);
            let mut byte = 0u8;
            // Returns once this process closes its end (or ends).
            libc::read(go_read.as_raw_fd(), (&mut byte as *mut u8).cast(), 1);
            libc::_exit(0);
        }
    }
    drop(ready_write);
    drop(go_read);
    let made = (|| {
        let mut byte = [0u8];
        if rustix::io::read(&ready_read, &mut byte).map_err(|e| e.raw_os_error())? != 1
            || byte[0] != 1
        {
            return Err(libc::EPERM);
        }
        for map in ["uid_map", "gid_map"] {
            std::fs::write(format!("/proc/{child}/{map}"), ALL_BUT_ROOT)
                .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))?;
        }
        let path = CString::new(format!("/proc/{child}/ns/user")).expect("digits");
        // SAFETY: open of a C string; the descriptor is owned below.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(errno());
        }
        // SAFETY: just opened, owned by nothing else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    })();
    drop(go_write);
    let mut status = 0;
    // SAFETY: waits for our own child.
    unsafe { libc::waitpid(child, &mut status, 0) };
    made
}

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EINVAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In a forked child that holds no capability: what it reads of a root-only file under /etc, and of a
    /// world-readable one, with the idmap entered or not. 0: refused and read; 1: read and read; else a failure.
    fn read_as_capless_root(idmap: &SystemIdmap, enter: bool, secret: &CString) -> i32 {
        let open_file = CString::from(c"/etc/hostname");
        // SAFETY: fork() takes no pointers; the child is handled in the arm below.
        match unsafe { libc::fork() } {
            // SAFETY: the child makes only system calls on strings built before the fork, then _exit.
            0 => unsafe {
                if enter && idmap.enter() != 0 {
                    libc::_exit(10);
                }
                if crate::confine::caps::drop_all() != 0 {
                    libc::_exit(11);
                }
                let reads = |path: &CString| libc::open(path.as_ptr(), libc::O_RDONLY) >= 0;
                libc::_exit(match (reads(secret), reads(&open_file)) {
                    (false, true) => 0,
                    (true, true) => 1,
                    _ => 12,
                });
            },
            pid => {
                let mut status = 0;
                // SAFETY: waits for our own child.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                libc::WEXITSTATUS(status)
            }
        }
    }

    #[test]
    fn a_root_runner_without_capabilities_reads_no_root_only_file_of_the_system_trees() {
        let Some(idmap) = prepare().unwrap() else {
            // Not root of the initial user namespace: nothing of the host's is its own to read.
            assert!(!rustix::process::geteuid().is_root() || !initial_user_namespace());
            return;
        };
        let path = format!("/etc/shellring-idmap-test-{}", std::process::id());
        std::fs::write(&path, "root-only\n").unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();
        let secret = CString::new(path.clone()).unwrap();
        let (without, with) = (
            read_as_capless_root(&idmap, false, &secret),
            read_as_capless_root(&idmap, true, &secret),
        );
        let _ = std::fs::remove_file(&path);
        assert_eq!(
            without, 1,
            "root's owner bits let it read the file (so the test can fail)"
        );
        assert_eq!(
            with, 0,
            "10: enter failed, 11: caps, 12: the readable file refused; 1: the secret read"
        );
    }
}
