//! What a silent `--stdio` command's processes wait on, as this host's /proc shows it: the runner takes a snapshot of
//! the files the host's waiting look reads (src/executor/waiting.ts) and sends it back whole, so the host judges a
//! remote command exactly as it judges a local one, with this host's syscall numbers.
//!
//! Payload: NUL-terminated pairs of name and content. `arch` (the host's name for this architecture), `root` (the
//! runner's pid), `pids` (its live descendants, space-separated), then per process `/proc/<pid>/stat`, `syscall`, `fd` (the
//! descriptor numbers, space-separated), `fd/<n>` (each link's target) and, for a process holding a socket,
//! `net/tcp` and `net/tcp6`.

use nix::unistd::Pid;

use crate::life::proc_tree;
use crate::wire::look::{Snapshot, ARCH as ARCH_NAME, PIDS, ROOT};

/// This architecture as Node's `process.arch` names it (the host's table of syscall numbers is keyed by it).
const ARCH: &str = match std::env::consts::ARCH.as_bytes() {
    b"x86_64" => "x64",
    b"aarch64" => "arm64",
    _ => std::env::consts::ARCH,
};

/// The snapshot of what `runner`'s descendants wait on.
pub fn snapshot(runner: Pid) -> Vec<u8> {
    let mut out = Snapshot::default();
    let mut put = |name: &str, value: &str| out.put(name, value);
    let pids = proc_tree::descendants(runner);
    put(ARCH_NAME, ARCH);
    put(ROOT, &runner.to_string());
    let list: Vec<String> = pids.iter().map(|pid| pid.to_string()).collect();
    put(PIDS, &list.join(" "));
    for pid in pids {
        let dir = format!("/proc/{pid}");
        for file in ["stat", "syscall"] {
            if let Ok(text) = std::fs::read_to_string(format!("{dir}/{file}")) {
                put(&format!("{dir}/{file}"), &text);
            }
        }
        let Ok(entries) = std::fs::read_dir(format!("{dir}/fd")) else {
            continue;
        };
        let mut names = Vec::new();
        let mut socket = false;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Ok(target) = std::fs::read_link(entry.path()) {
                let target = target.to_string_lossy().into_owned();
                socket |= target.starts_with("socket:");
                put(&format!("{dir}/fd/{name}"), &target);
                names.push(name);
            }
        }
        put(&format!("{dir}/fd"), &names.join(" "));
        if socket {
            for table in ["tcp", "tcp6"] {
                if let Ok(text) = std::fs::read_to_string(format!("{dir}/net/{table}")) {
                    put(&format!("{dir}/net/{table}"), &text);
                }
            }
        }
    }
    out.bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_names_each_descendant_and_its_descriptors() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let me = Pid::this();
        let bytes = snapshot(me);
        let _ = child.kill();
        let _ = child.wait();
        let fields: Vec<&str> = std::str::from_utf8(&bytes).unwrap().split('\0').collect();
        let get = |name: &str| {
            fields
                .chunks(2)
                .find(|pair| pair[0] == name)
                .map(|pair| pair[1])
        };
        assert_eq!(get("arch"), Some(ARCH));
        let pid = child.id();
        assert!(get("pids")
            .unwrap()
            .split(' ')
            .any(|p| p == pid.to_string()));
        assert!(get(&format!("/proc/{pid}/stat"))
            .unwrap()
            .starts_with(&format!("{pid} (sleep) ")));
        assert!(get(&format!("/proc/{pid}/fd/0"))
            .unwrap()
            .starts_with("pipe:"));
        assert!(get(&format!("/proc/{pid}/fd"))
            .unwrap()
            .split(' ')
            .any(|n| n == "0"));
    }
}
