//! A command's course kept by its runner, end to end through `--run`: the deadline (ended, or reported), TERM then
//! KILL after the grace, the first cause winning, the drain bound and the count of what was left, and a runner its
//! command stopped still keeping the deadline.

#[allow(dead_code)] // some helpers serve the other suites
mod common;

use common::command;
use std::io::{BufRead, BufReader, Write};

/// The supervisor's end of a runner's status socket.
struct Channel {
    lines: BufReader<std::fs::File>,
    ours: std::fs::File,
}

impl Channel {
    /// The next status line, without its newline; empty at the hang-up.
    fn line(&mut self) -> String {
        let mut line = String::new();
        self.lines.read_line(&mut line).unwrap();
        line.trim_end().to_string()
    }

    fn send(&mut self, line: &str) {
        self.ours.write_all(format!("{line}\n").as_bytes()).unwrap();
    }

    /// Ends the lifeline: the runner kills what is left and hangs up.
    fn release(&mut self) {
        use std::os::fd::AsRawFd;
        let write = nix::sys::socket::Shutdown::Write;
        nix::sys::socket::shutdown(self.ours.as_raw_fd(), write).unwrap();
    }
}

/// Runs `script` under `--run` with the control `lines` sent after its request; returns every status line up to the
/// runner's hang-up, the `started` line's pid left out. `during` may read and write lines once bash has started.
fn course(script: &str, lines: &[&str], during: impl FnOnce(&mut Channel)) -> Vec<String> {
    let (mut child, ours) = common::run(command(script));
    let lines_in = BufReader::new(ours.try_clone().unwrap());
    let mut channel = Channel {
        lines: lines_in,
        ours,
    };
    lines.iter().for_each(|line| channel.send(line));
    let started = channel.line();
    assert!(started.starts_with("started "), "{started}");
    let mut seen = vec!["started".to_string()];
    during(&mut channel);
    loop {
        let line = channel.line();
        if line.is_empty() {
            break;
        }
        seen.push(line);
    }
    child.wait().unwrap();
    seen
}

#[test]
fn the_deadline_ends_the_command_with_a_term_it_may_trap() {
    let seen = course(
        "trap 'exit 9' TERM; sleep 30 & wait",
        &["life 1000 kill 10000 10000"],
        |_| {},
    );
    assert_eq!(seen, ["started", "stopping timeout", "exit 9", "over 0"]);
}

#[test]
fn a_term_it_ignores_is_followed_by_the_kill_at_the_grace() {
    let seen = course(
        "trap '' TERM; sleep 30 & wait; sleep 30",
        &["life 300 kill 500 10000"],
        |_| {},
    );
    assert_eq!(
        seen,
        [
            "started",
            "stopping timeout",
            &format!("signal {}", libc::SIGKILL),
            "over 0"
        ]
    );
}

#[test]
fn a_reported_deadline_lets_the_command_run_on() {
    let seen = course("sleep 1; exit 4", &["life 200 report 10000 10000"], |_| {});
    assert_eq!(seen, ["started", "deadline", "exit 4", "over 0"]);
}

#[test]
fn the_first_cause_wins() {
    let ready = std::env::temp_dir().join(format!("shellring-course-{}", std::process::id()));
    let _ = std::fs::remove_file(&ready);
    let script = format!(
        "trap 'exit 9' TERM; touch {}; sleep 30 & wait",
        ready.display()
    );
    let seen = course(&script, &["life 600000 kill 10000 10000"], |channel| {
        // Its trap is set before the first cause comes.
        common::wait_until("the trap to be set", || ready.exists());
        channel.send("kill abort");
        channel.send("kill kill");
    });
    let _ = std::fs::remove_file(&ready);
    assert_eq!(seen, ["started", "stopping abort", "exit 9", "over 0"]);
}

#[test]
fn a_runner_its_command_stopped_keeps_the_deadline() {
    let seen = course(
        "kill -STOP $PPID; sleep 30",
        &["life 500 kill 10000 10000"],
        |_| {},
    );
    assert_eq!(
        seen,
        [
            "started",
            "stopping timeout",
            &format!("signal {}", libc::SIGTERM),
            "over 0"
        ]
    );
}

#[test]
fn output_held_open_ends_at_the_drain_bound_and_counts_what_was_left() {
    // The sleep keeps the runner's stdout (the command's) open and outlives bash: one process left running, which
    // the runner keeps until its lifeline ends.
    let seen = course(
        "sleep 30 & exit 3",
        &["life 600000 kill 10000 300"],
        |channel| {
            assert_eq!([channel.line(), channel.line()], ["exit 3", "over 1"]);
            channel.release();
        },
    );
    assert_eq!(seen, ["started"]);
}

#[test]
fn output_ended_where_it_is_read_ends_the_wait_at_once() {
    let seen = course(
        "sleep 30 >/dev/null 2>&1 & exit 0",
        &["life 600000 kill 10000 600000"],
        |channel| {
            assert_eq!(channel.line(), "exit 0");
            channel.send("output-ended");
            assert_eq!(channel.line(), "over 1");
            channel.release();
        },
    );
    assert_eq!(seen, ["started"]);
}
