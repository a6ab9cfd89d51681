//! The layer Landlock lacks: a private mount namespace where every mount is read-only (so no change of mode,
//! owner, times or extended attributes lands outside the writable roots, and the kernel's /proc/sys, /sys and
//! cgroupfs cannot be written), the writable roots bound back read-write, the runtime's state hidden under empty
//! tmpfs, denied paths masked, in the session view the places that hold data emptied with the command's own paths
//! bound back, and private IPC, pid (and, with the network denied, network) namespaces. Entered directly when the
//! runner is root (the system's trees then seen as another user sees them: `idmap`); through a user namespace that
//! maps only the caller's own ids otherwise.

use std::ffi::{CStr, CString};
use std::os::fd::{AsFd, OwnedFd};

use rustix::fs::{Mode, OFlags, CWD};
use rustix::mount::{MountFlags, MountPropagationFlags, MoveMountFlags, OpenTreeFlags};
use rustix::thread::UnshareFlags;

use super::idmap::{self, SystemIdmap};
use super::{mount_attr, view};
use crate::wire::plan::{Plan, View};

/// Paths one command may have bound back (writable and read-only together); a fixed bound keeps the forked child
/// free of allocation.
pub const MAX_BINDS: usize = 32;

/// A path bound back into the view, taken from the host before anything is hidden.
struct Bind {
    path: CString,
    writable: bool,
}

/// Everything the child needs, built before the fork: after it, only system calls run.
pub struct Prepared {
    /// Read-only binds first: they are moved in before every mount turns read-only, the writable ones after.
    binds: Vec<Bind>,
    /// Directories covered by an empty tmpfs: the places that hold data (session view), then the runtime's state.
    emptied: Vec<CString>,
    /// Parents-first paths made inside an emptied directory, so a bind below it has a mount point (and whether
    /// each is a directory: a file is bound on a file).
    mountpoints: Vec<(CString, bool)>,
    /// Denied paths and whether each is a directory.
    masks: Vec<(CString, bool)>,
    cwd: Option<CString>,
    uid_map: CString,
    gid_map: CString,
    deny_network: bool,
    as_root: bool,
    /// A root runner's: the system's trees with root's ownership mapped away.
    idmap: Option<SystemIdmap>,
}

/// The steps of `enter` (and of `mount_proc`), by the token the runner's report names one with when it fails (the
/// host words each: src/contract/runner-failures.ts).
pub const STEPS: &[&str] = &[
    "unshare",
    "setgroups",
    "uid_map",
    "gid_map",
    "make-private",
    "open_tree",
    "hide-state",
    "mkdir-mount-point",
    "mount_setattr",
    "move_mount",
    "chdir",
    "mask",
    "mount-proc",
    "idmap",
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
/// A message when a path cannot be passed to the kernel or there are too many paths to bind.
pub fn prepare(plan: &Plan) -> Result<Prepared, String> {
    let c =
        |p: &str| CString::new(p).map_err(|_| format!("sandbox: path {p:?} contains a NUL byte"));
    let is_dir = |p: &str| std::fs::metadata(p).map(|m| m.is_dir()).unwrap_or(true);
    // A read-only path that does not exist has nothing to show.
    let readable: Vec<&String> = plan
        .readable
        .iter()
        .filter(|p| std::path::Path::new(p).exists())
        .collect();
    let binds: Vec<Bind> = readable
        .iter()
        .map(|p| (*p, false))
        .chain(plan.writable.iter().map(|p| (p, true)))
        .map(|(p, writable)| {
            Ok(Bind {
                path: c(p)?,
                writable,
            })
        })
        .collect::<Result<_, String>>()?;
    if binds.len() > MAX_BINDS {
        return Err(format!("sandbox: at most {MAX_BINDS} paths to bind"));
    }
    let mut emptied: Vec<String> = Vec::new();
    if plan.view == View::Session {
        emptied.extend(view::existing(view::EMPTIED).map(String::from));
    }
    emptied.extend(
        plan.hidden
            .iter()
            .filter(|h| view::hidden_shown(plan, h))
            .cloned(),
    );
    let mut mountpoints = Vec::new();
    for bind in readable.into_iter().chain(&plan.writable) {
        // The innermost emptied directory holding the bind decides where its mount point chain starts.
        let Some(cover) = emptied
            .iter()
            .filter(|e| view::beneath(bind, e) && *e != bind)
            .max_by_key(|e| e.len())
        else {
            continue;
        };
        let mut path = cover.trim_end_matches('/').to_string();
        let parts: Vec<&str> = bind[path.len()..]
            .split('/')
            .filter(|p| !p.is_empty())
            .collect();
        for (i, part) in parts.iter().enumerate() {
            path.push('/');
            path.push_str(part);
            let dir = i + 1 < parts.len() || is_dir(bind);
            let point = (c(&path)?, dir);
            if !mountpoints.contains(&point) {
                mountpoints.push(point);
            }
        }
    }
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    Ok(Prepared {
        binds,
        emptied: emptied.iter().map(|p| c(p)).collect::<Result<_, _>>()?,
        mountpoints,
        masks: view::masks(plan)
            .into_iter()
            .map(|(p, dir)| Ok((c(&p)?, dir)))
            .collect::<Result<_, String>>()?,
        cwd: std::env::current_dir()
            .ok()
            .and_then(|d| CString::new(d.into_os_string().into_encoded_bytes()).ok()),
        uid_map: CString::new(format!("{uid} {uid} 1")).expect("digits"),
        gid_map: CString::new(format!("{gid} {gid} 1")).expect("digits"),
        deny_network: plan.own_network(),
        as_root: rustix::process::geteuid().is_root(),
        idmap: idmap::prepare()?,
    })
}

impl Prepared {
    /// Enters the namespaces and builds the view. Call in the forked child, before dropping capabilities. The
    /// pid namespace takes effect for the children of the caller: its next child is the namespace's first process,
    /// which must then call `mount_proc`.
    ///
    /// # Errors
    /// The failing step; `unshare` failing means no namespace is possible here (the caller may fall back).
    pub fn enter(&self) -> Result<(), Failure> {
        let mut flags = UnshareFlags::NEWNS | UnshareFlags::NEWIPC | UnshareFlags::NEWPID;
        if self.deny_network {
            flags |= UnshareFlags::NEWNET;
        }
        // Root (with CAP_SYS_ADMIN) needs no user namespace; without it, one that maps only our own ids does.
        // SAFETY: the runner's child is single-threaded and shares no file-system state with another thread.
        let direct = self.as_root && unsafe { rustix::thread::unshare_unsafe(flags) }.is_ok();
        if !direct {
            // SAFETY: as above.
            unsafe { rustix::thread::unshare_unsafe(flags | UnshareFlags::NEWUSER) }
                .map_err(fail("unshare"))?;
            write_file(c"/proc/self/setgroups", b"deny").map_err(fail("setgroups"))?;
            write_file(c"/proc/self/uid_map", self.uid_map.as_bytes()).map_err(fail("uid_map"))?;
            write_file(c"/proc/self/gid_map", self.gid_map.as_bytes()).map_err(fail("gid_map"))?;
        }
        rustix::mount::mount_change(
            c"/",
            MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
        )
        .map_err(fail("make-private"))?;
        // Detached copies of each bound path, taken before anything is hidden or turns read-only.
        let mut clones: [Option<OwnedFd>; MAX_BINDS] = Default::default();
        for (slot, bind) in clones.iter_mut().zip(&self.binds) {
            let flags = OpenTreeFlags::OPEN_TREE_CLONE
                | OpenTreeFlags::AT_RECURSIVE
                | OpenTreeFlags::OPEN_TREE_CLOEXEC;
            *slot = Some(
                rustix::mount::open_tree(CWD, bind.path.as_c_str(), flags)
                    .map_err(fail("open_tree"))?,
            );
        }
        // After the clones (the paths bound back keep their owners), before anything is mounted over the trees.
        if let Some(idmap) = &self.idmap {
            match idmap.apply() {
                0 => {}
                errno => {
                    return Err(fail(idmap::STEP)(rustix::io::Errno::from_raw_os_error(
                        errno,
                    )))
                }
            }
        }
        for path in &self.emptied {
            let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
            match rustix::mount::mount(
                c"tmpfs",
                path.as_c_str(),
                c"tmpfs",
                flags,
                Some(c"mode=0755"),
            ) {
                // Beneath a directory emptied before it: already out of sight.
                Ok(()) | Err(rustix::io::Errno::NOENT) => {}
                Err(e) => return Err(fail("hide-state")(e)),
            }
        }
        self.make_mount_points()?;
        let moved = |writable: bool| -> Result<(), Failure> {
            for (clone, bind) in clones
                .iter()
                .zip(&self.binds)
                .filter(|(_, b)| b.writable == writable)
            {
                let Some(clone) = clone else { break };
                rustix::mount::move_mount(
                    clone.as_fd(),
                    c"",
                    CWD,
                    bind.path.as_c_str(),
                    MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
                )
                .map_err(fail("move_mount"))?;
            }
            Ok(())
        };
        moved(false)?;
        read_only_everywhere().map_err(fail("mount_setattr"))?;
        moved(true)?;
        self.mask()?;
        // The working directory still names the old, now read-only, mount: look it up again.
        if let Some(cwd) = &self.cwd {
            rustix::process::chdir(cwd.as_c_str()).map_err(fail("chdir"))?;
        }
        Ok(())
    }

    /// The mount points of the binds below an emptied directory, parents first.
    fn make_mount_points(&self) -> Result<(), Failure> {
        for (path, dir) in &self.mountpoints {
            let made = if *dir {
                rustix::fs::mkdir(path.as_c_str(), Mode::from_raw_mode(0o755))
            } else {
                rustix::fs::open(
                    path.as_c_str(),
                    OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC,
                    Mode::RUSR,
                )
                .map(drop)
            };
            match made {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(fail("mkdir-mount-point")(e)),
            }
        }
        Ok(())
    }

    /// Masks every denied path: last, so a mask holds inside a writable root too; read-only and empty either way.
    fn mask(&self) -> Result<(), Failure> {
        for (path, dir) in &self.masks {
            let flags =
                MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC | MountFlags::RDONLY;
            let masked = if *dir {
                rustix::mount::mount(
                    c"tmpfs",
                    path.as_c_str(),
                    c"tmpfs",
                    flags,
                    Some(c"mode=0755"),
                )
            } else {
                rustix::mount::mount_bind(c"/dev/null", path.as_c_str())
            };
            masked.map_err(fail("mask"))?;
        }
        Ok(())
    }
}

/// In the pid namespace's first process: a /proc of its own (read-only: the kernel's settings are not the
/// command's to write), so no process outside the namespace can be seen there.
///
/// # Errors
/// The failure of the mount.
pub fn mount_proc() -> Result<(), Failure> {
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC | MountFlags::RDONLY;
    rustix::mount::mount(c"proc", c"/proc", c"proc", flags, None).map_err(fail("mount-proc"))
}

fn fail(step: &'static str) -> impl Fn(rustix::io::Errno) -> Failure {
    let step = STEPS.iter().position(|s| *s == step).unwrap_or(0);
    move |e| Failure {
        step,
        errno: e.raw_os_error(),
    }
}

fn write_file(path: &CStr, bytes: &[u8]) -> rustix::io::Result<()> {
    let fd = rustix::fs::open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    rustix::io::write(fd, bytes).map(|_| ())
}

/// Every mount of this namespace read-only and nosuid, in one call.
fn read_only_everywhere() -> rustix::io::Result<()> {
    let set = mount_attr::RDONLY | mount_attr::NOSUID;
    mount_attr::set(libc::AT_FDCWD, c"/", 0, set, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::plan::Backend;

    fn plan(writable: &[&str], hidden: &[&str], view: View) -> Plan {
        Plan {
            backend: Backend::Landlock,
            writable: writable.iter().map(|s| s.to_string()).collect(),
            hidden: hidden.iter().map(|s| s.to_string()).collect(),
            view,
            deny_network: true,
            ..Plan::default()
        }
    }

    fn points(p: &Prepared) -> Vec<&str> {
        p.mountpoints
            .iter()
            .map(|(c, _)| c.to_str().unwrap())
            .collect()
    }

    #[test]
    fn a_writable_root_below_a_hidden_directory_gets_its_mount_points() {
        let p = prepare(&plan(
            &["/state/tmp/s1", "/ws"],
            &["/state/tmp", "/spill"],
            View::Host,
        ))
        .unwrap();
        assert_eq!(points(&p), ["/state/tmp/s1"]);
        assert!(p.deny_network);
        let uid = rustix::process::getuid().as_raw();
        assert_eq!(p.uid_map.to_str().unwrap(), format!("{uid} {uid} 1"));
    }

    #[test]
    fn a_hidden_prefix_is_matched_by_whole_components() {
        let p = prepare(&plan(&["/state/tmpfoo"], &["/state/tmp"], View::Host)).unwrap();
        assert!(p.mountpoints.is_empty());
    }

    #[test]
    fn the_session_view_empties_the_data_places_and_binds_its_own_paths_back() {
        let p = prepare(&plan(&["/tmp/a/ws"], &["/state"], View::Session)).unwrap();
        let emptied: Vec<_> = p.emptied.iter().map(|c| c.to_str().unwrap()).collect();
        assert!(
            emptied.contains(&"/tmp") && !emptied.contains(&"/state"),
            "{emptied:?}"
        );
        assert_eq!(points(&p), ["/tmp/a", "/tmp/a/ws"]);
    }

    #[test]
    fn too_many_binds_or_a_nul_byte_are_refused() {
        let many: Vec<String> = (0..=MAX_BINDS).map(|i| format!("/w{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(prepare(&plan(&refs, &[], View::Host)).is_err());
        assert!(prepare(&plan(&["/a\0b"], &[], View::Host))
            .err()
            .unwrap()
            .contains("NUL"));
    }
}
