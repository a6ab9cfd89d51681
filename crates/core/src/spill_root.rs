//! Spill roots of crashed runtimes: a live runtime holds an exclusive `flock` on `<root>/.lock` for as long as
//! it runs, and the kernel drops that lock when the process dies however it dies, so a root whose lock can be
//! taken belongs to no live runtime and is reclaimed when the next runtime starts.

use std::fs::{self, OpenOptions};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::error::Error;

/// The marker a live runtime keeps locked inside its root.
pub const LOCK_FILE: &str = ".lock";
/// Roots are `<parent>/shellring-XXXXXX` (mkdtemp).
pub const PREFIX: &str = "shellring-";

fn io(e: std::io::Error) -> Error {
    Error::Io(e.to_string())
}

fn try_flock(fd: &OwnedFd) -> bool {
    // SAFETY: flock on an fd we own has no memory effects.
    unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Marks `root` as a live runtime's: the returned fd holds the lock until it is closed (or the process dies).
/// The file is locked before it takes its name, so no other runtime ever sees it unlocked.
///
/// # Errors
/// The OS error of creating, locking or renaming the marker.
pub fn lock(root: &Path) -> Result<OwnedFd, Error> {
    let staging = root.join(format!("{LOCK_FILE}.{}", std::process::id()));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(&staging)
        .map_err(io)?;
    let fd = OwnedFd::from(file);
    if !try_flock(&fd) {
        let _ = fs::remove_file(&staging);
        return Err(Error::Io("could not lock the spill root marker".into()));
    }
    fs::rename(&staging, root.join(LOCK_FILE)).map_err(io)?;
    Ok(fd)
}

/// Removes every `shellring-*` directory under `parent` that this user owns and whose lock marker no live
/// runtime holds; returns how many. Directories without a marker (a runtime that keeps its spill files, or
/// one that is starting right now) are left alone, as is anything that is not a plain directory.
pub fn reclaim(parent: &Path) -> usize {
    let Ok(entries) = fs::read_dir(parent) else {
        return 0;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mut reclaimed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        let marker = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
            .open(path.join(LOCK_FILE));
        let Ok(marker) = marker else { continue };
        let fd = OwnedFd::from(marker);
        // Held while removing, so a runtime cannot start to use it meanwhile (none would: mkdtemp names are new).
        if try_flock(&fd) && fs::remove_dir_all(&path).is_ok() {
            reclaimed += 1;
        }
    }
    reclaimed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(parent: &Path, n: usize) -> std::path::PathBuf {
        let dir = parent.join(format!("{PREFIX}{n}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("a.log"), b"spilled").unwrap();
        dir
    }

    #[test]
    fn reclaims_unlocked_roots_and_keeps_live_and_unmarked_ones() {
        let parent =
            std::env::temp_dir().join(format!("shellring-reclaim-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&parent);
        fs::create_dir_all(&parent).unwrap();
        let live = root(&parent, 1);
        let held = lock(&live).unwrap();
        let dead = root(&parent, 2);
        drop(lock(&dead).unwrap());
        let unmarked = root(&parent, 3);
        fs::write(parent.join("other"), b"").unwrap();
        assert_eq!(reclaim(&parent), 1);
        assert!(live.exists() && unmarked.exists() && !dead.exists());
        drop(held);
        assert_eq!(reclaim(&parent), 1);
        assert!(!live.exists());
        fs::remove_dir_all(&parent).unwrap();
    }
}
