//! The answer to a `look` frame: a snapshot of the /proc files the host's waiting look reads
//! (src/executor/waiting.ts), taken by a remote runner of its command's processes, so the host judges a remote command
//! exactly as a local one. NUL-terminated pairs of name and content: `arch` (Node's name for this architecture),
//! `root` (the runner's pid), `pids` (its live descendants, space-separated), then each file by its /proc path
//! (`/proc/<pid>/fd` lists the descriptor numbers, space-separated; `/proc/<pid>/fd/<n>` is a link's target).

/// The names before the files.
pub const ARCH: &str = "arch";
pub const ROOT: &str = "root";
pub const PIDS: &str = "pids";

/// A snapshot being written.
#[derive(Default)]
pub struct Snapshot {
    pub bytes: Vec<u8>,
}

impl Snapshot {
    pub fn put(&mut self, name: &str, value: &str) {
        for part in [name, value] {
            self.bytes.extend_from_slice(part.as_bytes());
            self.bytes.push(0);
        }
    }
}
