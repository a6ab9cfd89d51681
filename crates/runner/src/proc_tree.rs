//! Finds every live descendant of this process through /proc and kills them all.

use std::collections::HashMap;

/// Live (non-zombie) descendants of `root`, found by following parent links in /proc.
pub fn descendants(root: libc::pid_t) -> Vec<libc::pid_t> {
    let mut children: HashMap<libc::pid_t, Vec<libc::pid_t>> = HashMap::new();
    let mut zombies = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<libc::pid_t>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("");
        let Some(ppid) = fields.next().and_then(|s| s.parse::<libc::pid_t>().ok()) else { continue };
        if state == "Z" {
            zombies.push(pid);
        }
        children.entry(ppid).or_default().push(pid);
    }
    let mut found = Vec::new();
    let mut queue = vec![root];
    while let Some(pid) = queue.pop() {
        if let Some(kids) = children.get(&pid) {
            for &kid in kids {
                found.push(kid);
                queue.push(kid);
            }
        }
    }
    found.retain(|pid| !zombies.contains(pid));
    found
}

/// SIGKILLs the process group `pgid` and every descendant until none is left (bounded rounds: a descendant may
/// fork while we look).
pub fn kill_all(pgid: Option<libc::pid_t>, mut reap: impl FnMut()) {
    let me = unsafe { libc::getpid() };
    for _ in 0..200 {
        if let Some(pgid) = pgid {
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
        let left = descendants(me);
        for &pid in &left {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        reap();
        if left.is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
