//! Helpers the unit tests share: pipes that hold given bytes, and unlinked files of their own.

use std::fs::File;
use std::io::Write;
#[cfg(target_os = "linux")]
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU32, Ordering};

/// A pipe holding `bytes`: its read end (non-blocking), and its write end, open.
#[cfg(target_os = "linux")]
pub fn pipe_with(bytes: &[u8]) -> (OwnedFd, File) {
    let (read, write, _) = crate::pipe::owned().unwrap();
    let mut write = File::from(write);
    write.write_all(bytes).unwrap();
    (read, write)
}

/// A new file, read and written (appended to only, with `append`), already unlinked: nothing is left behind.
pub fn unlinked_file(append: bool) -> File {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("shellring-unit-{}-{n}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .append(append)
        .create_new(true)
        .open(&path)
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    file
}
