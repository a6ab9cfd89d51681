//! Finds every live descendant of a process through /proc and kills them all.

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One /proc entry: its parent and whether it is a zombie (already dead, waiting to be reaped).
fn stat(pid: i32) -> Option<(i32, bool)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state == "Z"))
}

/// Live (non-zombie) descendants of `root`. Walks down from `root` through each task's `children` file, so the
/// cost follows the size of the tree, not of the machine (a thousand runners ending at once would otherwise each
/// read every process on it); a kernel without those files gets the full scan.
pub fn descendants(root: Pid) -> Vec<Pid> {
    let mut found = Vec::new();
    let mut queue = vec![root.as_raw()];
    while let Some(pid) = queue.pop() {
        let Some(kids) = children(pid) else {
            if pid == root.as_raw() {
                return descendants_by_scan(root);
            }
            // Ended while we looked.
            continue;
        };
        for kid in kids {
            if stat(kid).is_some_and(|(_, zombie)| !zombie) {
                found.push(Pid::from_raw(kid));
            }
            queue.push(kid);
        }
    }
    found
}

/// The children of `pid`, zombies included (empty when it has none or the kernel lacks the `children` files).
pub fn children_of(pid: Pid) -> Vec<Pid> {
    children(pid.as_raw())
        .unwrap_or_default()
        .into_iter()
        .map(Pid::from_raw)
        .collect()
}

/// The children of every thread of `pid`, from /proc/<pid>/task/<tid>/children; None when the files are absent.
fn children(pid: i32) -> Option<Vec<i32>> {
    let mut kids = Vec::new();
    let mut any = false;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .flatten()
    {
        let Ok(text) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        any = true;
        kids.extend(
            text.split_whitespace()
                .filter_map(|s| s.parse::<i32>().ok()),
        );
    }
    any.then_some(kids)
}

/// Live descendants of `root`, found by following parent links over the whole of /proc.
fn descendants_by_scan(root: Pid) -> Vec<Pid> {
    let mut children: HashMap<i32, Vec<(i32, bool)>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some((ppid, zombie)) = stat(pid) {
            children.entry(ppid).or_default().push((pid, zombie));
        }
    }
    let mut found = Vec::new();
    let mut queue = vec![root.as_raw()];
    while let Some(pid) = queue.pop() {
        for &(kid, zombie) in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            if !zombie {
                found.push(Pid::from_raw(kid));
            }
            queue.push(kid);
        }
    }
    found
}

/// Live processes below `root` that outlive the command: not those of a sandbox's own (bwrap, and whatever runs in
/// the pid namespace it made, which the kernel ends with that namespace's first process), nor, with `condemned`, the
/// members of that process group (a killed command's: they get their KILL at the grace, some may be dying as we look).
pub fn left_running(root: Pid, condemned: Option<Pid>) -> usize {
    let namespace = |pid: Pid| std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok();
    let home = namespace(root);
    let sandbox_own = |pid: Pid| {
        namespace(pid) != home
            || std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|name| name.trim_end() == "bwrap")
    };
    let group = |pid: Pid| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(2)?
            .parse::<i32>()
            .ok()
    };
    descendants(root)
        .into_iter()
        .filter(|&pid| !sandbox_own(pid) && !dying(pid))
        .filter(|&pid| condemned.is_none_or(|g| group(pid) != Some(g.as_raw())))
        .count()
}

/// True when `pid` is on its way out, even when a loaded host has not run it since: it is exiting already, or has a
/// KILL pending (the kernel adds one for every signal that ends a process by default, like ssh's hang-up of its
/// ProxyCommand).
fn dying(pid: Pid) -> bool {
    /// PF_EXITING among the flags of /proc/<pid>/stat: the process is in exit and only has to be scheduled to finish.
    const EXITING: u64 = 0x4;
    let exiting = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|end| {
                stat[end + 1..]
                    .split_whitespace()
                    .nth(6)?
                    .parse::<u64>()
                    .ok()
            })
            .is_some_and(|flags| flags & EXITING != 0)
    });
    exiting
        || std::fs::read_to_string(format!("/proc/{pid}/status"))
            .is_ok_and(|status| kill_pending(&status))
}

/// Whether a /proc/<pid>/status text shows SIGKILL among the signals pending on its thread or on the process.
fn kill_pending(status: &str) -> bool {
    const KILL: u64 = 1 << (Signal::SIGKILL as u64 - 1);
    status
        .lines()
        .filter_map(|line| {
            line.strip_prefix("SigPnd:")
                .or_else(|| line.strip_prefix("ShdPnd:"))
        })
        .any(|mask| u64::from_str_radix(mask.trim(), 16).is_ok_and(|mask| mask & KILL != 0))
}

/// How long processes found after the command ended get to go on their own before they count as left running.
const SETTLE: Duration = Duration::from_millis(500);
const SETTLE_STEP: Duration = Duration::from_millis(10);

/// `left_running`, once what is on its way out had a moment to go: a process its command told to end as it exited
/// (ssh hangs up its ProxyCommand, a pipeline's last stage drains) was not left running. Waits only while some are
/// found, at most `SETTLE`.
pub fn left_running_settled(root: Pid, condemned: Option<Pid>) -> usize {
    let until = Instant::now() + SETTLE;
    loop {
        let left = left_running(root, condemned);
        if left == 0 || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(SETTLE_STEP);
    }
}

/// SIGKILLs the process group `pgid` and every descendant of `root` until none is left, calling `reap` between
/// rounds (bounded: a descendant may fork while we look). Nothing is left once `root` has no child at all, not even a
/// zombie, or else when two rounds in a row find nothing: a process whose parent just died is on its way to `root`
/// and shows in no `children` file meanwhile. Returns how many live descendants it found and killed.
pub fn kill_all(root: Pid, pgid: Option<Pid>, mut reap: impl FnMut()) -> usize {
    let mut killed = std::collections::HashSet::new();
    let mut empty_rounds = 0;
    for _ in 0..200 {
        if let Some(pgid) = pgid {
            let _ = killpg(pgid, Signal::SIGKILL);
        }
        // A process on its way to `root` has a parent that is dying in `root`'s tree, and the kernel hands it over
        // before that parent leaves the tree: with no child listed (the list is read under the same lock), nothing
        // is below `root` nor on its way, so there is no second round to wait for. The usual end of a command.
        if children(root.as_raw()).is_some_and(|kids| kids.is_empty()) {
            break;
        }
        let left = descendants(root);
        for &pid in &left {
            let _ = kill(pid, Signal::SIGKILL);
        }
        killed.extend(left.iter().copied());
        reap();
        empty_rounds = if left.is_empty() { empty_rounds + 1 } else { 0 };
        if empty_rounds == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    killed.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn alive(pid: Pid) -> bool {
        stat(pid.as_raw()).is_some_and(|(_, zombie)| !zombie)
    }

    /// True once `pid` is dead (gone or a zombie) within `bound`.
    fn dies_within(pid: Pid, bound: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + bound;
        while alive(pid) {
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        true
    }

    #[test]
    fn finds_and_kills_a_whole_tree_including_a_new_session() {
        // bash starts a plain background child and one in its own session; both are its descendants. They sleep far
        // longer than the bound below, so only kill_all can end them in time.
        let mut root = Command::new("bash")
            .args(["-c", "sleep 600 & setsid sleep 600 & echo ready; wait"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(root.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let pid = Pid::from_raw(root.id() as i32);
        let mut found = descendants(pid);
        for _ in 0..100 {
            if found.len() >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            found = descendants(pid);
        }
        assert_eq!(found.len(), 2, "two sleeps under bash: {found:?}");
        // bash itself is not a descendant of itself: kill_all leaves it alone, and counts the two it ended.
        assert_eq!(kill_all(pid, None, || {}), 2);
        let survivors: Vec<Pid> = found
            .iter()
            .copied()
            .filter(|&p| !dies_within(p, std::time::Duration::from_secs(5)))
            .collect();
        // Whatever the outcome, nothing of this test outlives it.
        for &p in &survivors {
            let _ = kill(p, Signal::SIGKILL);
        }
        let _ = root.kill();
        root.wait().unwrap();
        assert!(survivors.is_empty(), "kill_all left {survivors:?} alive");
    }

    #[test]
    fn the_children_walk_and_the_full_scan_agree() {
        let mut root = Command::new("bash")
            .args(["-c", "sleep 60 & (sleep 60 & wait) & echo ready; wait"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(root.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let pid = Pid::from_raw(root.id() as i32);
        let sorted = |mut v: Vec<Pid>| {
            v.sort();
            v
        };
        let mut walked = sorted(descendants(pid));
        for _ in 0..100 {
            if walked.len() >= 3 && walked == sorted(descendants_by_scan(pid)) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            walked = sorted(descendants(pid));
        }
        assert_eq!(walked.len(), 3, "two sleeps and a subshell: {walked:?}");
        assert_eq!(walked, sorted(descendants_by_scan(pid)));
        // Cleanup only (the killing is tested above): bash must not be left waiting for its sleeps' own end.
        kill_all(pid, None, || {});
        let _ = root.kill();
        root.wait().unwrap();
    }

    #[test]
    fn a_childless_root_ends_the_kill_at_once() {
        // Nothing below it and nothing on its way: no round to reap, no second round to wait for.
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        let mut rounds = 0;
        let ended = kill_all(Pid::from_raw(child.id() as i32), None, || rounds += 1);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!((rounds, ended), (0, 0));
    }

    #[test]
    fn a_pending_kill_marks_a_process_on_its_way_out() {
        let status = |thread: &str, shared: &str| {
            format!("State:\tS (sleeping)\nSigQ:\t1/7823\nSigPnd:\t{thread}\nShdPnd:\t{shared}\nSigBlk:\t0000000000000000\n")
        };
        assert!(kill_pending(&status(
            "0000000000000100",
            "0000000000000001"
        )));
        assert!(kill_pending(&status(
            "0000000000000000",
            "0000000000000100"
        )));
        assert!(!kill_pending(&status(
            "0000000000000000",
            "0000000000000001"
        )));
        assert!(!kill_pending(&status(
            "0000000000000000",
            "0000000000000000"
        )));
    }

    #[test]
    fn a_stopped_process_with_a_hang_up_is_not_on_its_way_out() {
        // A stopped process holds a HUP pending until it is continued: it may stay for good, so it still counts.
        let mut child = Command::new("sleep").arg("60").spawn().unwrap();
        let pid = Pid::from_raw(child.id() as i32);
        kill(pid, Signal::SIGSTOP).unwrap();
        while !std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap()
            .contains("State:\tT")
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        kill(pid, Signal::SIGHUP).unwrap();
        let held = dying(pid);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!held);
    }

    #[test]
    fn a_process_without_children_has_no_descendants() {
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        assert!(descendants(Pid::from_raw(child.id() as i32)).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
