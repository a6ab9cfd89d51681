//! The runner executable end to end: its status protocol on fd 3, its lifeline, and its death taking bash along.

mod common;

use common::{command, gone, wait_until};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use shellring_runner::wire::plan::{Backend, Plan};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

struct Running {
    child: Child,
    status: BufReader<std::fs::File>,
}

/// Starts `--run` on `plan`, its request sent on the status socket.
fn start(plan: Plan) -> Running {
    let (child, ours) = common::run(plan);
    Running {
        child,
        status: BufReader::new(ours),
    }
}

impl Running {
    fn line(&mut self) -> String {
        let mut line = String::new();
        self.status.read_line(&mut line).unwrap();
        line
    }

    fn started(&mut self) -> Pid {
        let line = self.line();
        let pid = line
            .strip_prefix("started ")
            .and_then(|rest| rest.split(' ').next())
            .expect(&line);
        Pid::from_raw(pid.parse().unwrap())
    }
}

fn wait_gone(pids: &[Pid]) {
    wait_until(&format!("every one of {pids:?} to end"), || {
        pids.iter().all(|&p| gone(p))
    });
}

/// Pids the command wrote into a file, one a line, once `count` are there.
fn pids_in(path: &std::path::Path, count: usize) -> Vec<Pid> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let pids: Vec<Pid> = text
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .map(Pid::from_raw)
            .collect();
        if pids.len() >= count {
            return pids;
        }
        assert!(Instant::now() < deadline, "pids never written: {text:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn temp(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "shellring-runner-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn reports_start_then_exit_code() {
    let mut run = start(command("exit 3"));
    run.started();
    assert_eq!(run.line(), "exit 3\n");
    assert!(run.child.wait().unwrap().success());
}

#[test]
fn reports_the_signal_that_ended_bash() {
    let mut run = start(command("kill -TERM $$"));
    run.started();
    assert_eq!(run.line(), format!("signal {}\n", libc::SIGTERM));
    run.child.wait().unwrap();
}

#[test]
fn waits_for_descendants_that_outlive_bash() {
    let file = temp("outlive");
    let mut run = start(command(&format!(
        "(sleep 2; echo $BASHPID >> {0}) & exit 0",
        file.display()
    )));
    run.started();
    assert_eq!(run.line(), "exit 0\n");
    run.child.wait().unwrap();
    // The runner only left after the background subshell wrote its line and ended.
    assert_eq!(pids_in(&file, 1).len(), 1);
}

#[test]
fn a_lost_lifeline_kills_every_descendant_even_in_a_new_session() {
    let file = temp("lifeline");
    let script = format!(
        "setsid sh -c 'echo $$ >> {0}; exec sleep 60' & sleep 60 & echo $! >> {0}; wait",
        file.display()
    );
    let mut run = start(command(&script));
    let bash = run.started();
    let mut pids = pids_in(&file, 2);
    pids.push(bash);
    drop(run.status);
    wait_gone(&pids);
    run.child.wait().unwrap();
}

#[test]
fn sigterm_to_the_runner_kills_every_descendant() {
    let file = temp("term");
    let mut run = start(command(&format!(
        "trap '' TERM; sleep 60 & echo $! >> {0}; wait",
        file.display()
    )));
    let bash = run.started();
    let mut pids = pids_in(&file, 1);
    pids.push(bash);
    kill(Pid::from_raw(run.child.id() as i32), Signal::SIGTERM).unwrap();
    wait_gone(&pids);
    run.child.wait().unwrap();
}

#[test]
fn bash_dies_with_a_sigkilled_runner() {
    let mut run = start(command("sleep 60"));
    let bash = run.started();
    run.child.kill().unwrap();
    run.child.wait().unwrap();
    wait_gone(&[bash]);
}

#[test]
fn an_unusable_backend_is_an_error_line_and_nothing_runs() {
    let mut run = start(Plan {
        backend: Backend::Bubblewrap("/nonexistent/bwrap".into()),
        ..command("true")
    });
    let line = run.line();
    assert_eq!(
        line,
        "error RUNNER_SPAWN exec 2 No such file or directory\t/nonexistent/bwrap\n"
    );
    assert_eq!(run.child.wait().unwrap().code(), Some(1));
}

#[test]
fn without_fd_3_it_refuses_with_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_shellring-runner"))
        .arg("--run")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fd 3 is not open"));
}
