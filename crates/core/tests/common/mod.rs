//! Helpers shared by the integration tests: private temporary directories and small file systems that clean up
//! after themselves.
// Each test binary compiles this module and uses only some of its helpers.
#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh 0700 directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("shellring-core-{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir(&path).expect("create temp dir");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o700)).expect("chmod temp dir");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The names of the files in the directory, sorted.
    pub fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.0)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A tmpfs of `size` (mount's syntax, e.g. `64k`) mounted on a new directory under `dir`; unmounted and removed on
/// drop even when the test fails. `None` unless running as root (mounting needs it).
pub struct Tmpfs(PathBuf);

impl Tmpfs {
    pub fn mount(dir: &Path, size: &str) -> Option<Self> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        let mount = Tmpfs(dir.join("small"));
        fs::create_dir(&mount.0).unwrap();
        let status = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(&mount.0)
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "mount -t tmpfs failed although running as root"
        );
        Some(mount)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
        let _ = fs::remove_dir(&self.0);
    }
}
