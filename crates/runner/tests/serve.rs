//! The fork server end to end: a command sent as descriptors plus a request frame runs and reports like a runner
//! started on its own; a bad request fails alone; what a killed runner left behind is ended; the server ends with
//! its socket and leaves its runners to their lifelines.

// Only some helpers of the shared test code serve here.
#[allow(dead_code)]
mod common;

use common::{gone, spawn_with_fd3, wait_until};
use nix::sys::signal::{kill, Signal};
use nix::sys::socket::{
    sendmsg, socketpair, AddressFamily, ControlMessage, MsgFlags, SockFlag, SockType,
};
use nix::unistd::Pid;
use shellring_runner::wire::plan::{Plan, View};
use shellring_runner::wire::request::Request;
use std::io::{BufRead, BufReader, IoSlice, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};

struct Server {
    child: Child,
    socket: OwnedFd,
}

fn server() -> Server {
    let (ours, theirs): (OwnedFd, OwnedFd) = socketpair(
        AddressFamily::Unix,
        SockType::SeqPacket,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_shellring-runner"));
    command
        .arg("--serve")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .env("ROOM", " ".repeat(2000));
    let child = spawn_with_fd3(&mut command, theirs);
    Server {
        child,
        socket: ours,
    }
}

/// One command's ends on this side: its status socket and its stdout.
struct Command1 {
    status: BufReader<std::fs::File>,
    stdout: std::fs::File,
}

impl Server {
    fn send(&self, request: &Request) -> Command1 {
        let (status, status_theirs): (OwnedFd, OwnedFd) = socketpair(
            AddressFamily::Unix,
            SockType::Stream,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .unwrap();
        let (out_read, out_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let fds = [
            status_theirs.as_raw_fd(),
            out_write.as_raw_fd(),
            out_write.as_raw_fd(),
        ];
        let cmsg = [ControlMessage::ScmRights(&fds)];
        sendmsg::<()>(
            self.socket.as_raw_fd(),
            &[IoSlice::new(&[1])],
            &cmsg,
            MsgFlags::empty(),
            None,
        )
        .unwrap();
        let mut status = std::fs::File::from(status);
        status.write_all(&request.record()).unwrap();
        Command1 {
            status: BufReader::new(status),
            stdout: std::fs::File::from(out_read),
        }
    }
}

impl Command1 {
    fn line(&mut self) -> String {
        let mut line = String::new();
        self.status.read_line(&mut line).unwrap();
        line
    }
}

fn request(command: &str) -> Request {
    Request {
        cwd: "/tmp".into(),
        plan: Plan {
            command: command.into(),
            ..Plan::default()
        },
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("MARK".into(), "served".into()),
        ],
        terminal: None,
        stdin: Some(b"from stdin\n".to_vec()),
    }
}

fn pid_of(line: &str, word: &str) -> Pid {
    let rest = line.strip_prefix(word).expect(line).trim();
    Pid::from_raw(rest.split(' ').next().unwrap().parse().unwrap())
}

#[test]
fn a_served_command_runs_with_its_request_and_reports() {
    let mut server = server();
    let mut command = server.send(&request("echo $MARK $PWD; cat; exit 7"));
    let runner = pid_of(&command.line(), "runner ");
    assert!(command.line().starts_with("started "));
    let title = std::fs::read_to_string(format!("/proc/{runner}/cmdline")).unwrap();
    assert!(
        title.starts_with("shellring-runner -c echo $MARK $PWD; cat; exit 7"),
        "{title:?}"
    );
    assert_eq!(command.line(), "exit 7\n");
    let mut out = String::new();
    command.stdout.read_to_string(&mut out).unwrap();
    assert_eq!(out, "served /tmp\nfrom stdin\n");
    // The runner exits once nothing is left, closing its status socket.
    assert_eq!(command.line(), "");
    drop(server.socket);
    server.child.wait().unwrap();
}

#[test]
fn a_bad_request_fails_alone_and_the_server_serves_on() {
    let mut server = server();
    let mut bad = server.send(&Request {
        plan: Plan {
            view: View::Session,
            ..Plan::default()
        },
        ..request("true")
    });
    pid_of(&bad.line(), "runner ");
    assert_eq!(
        bad.line(),
        "error RUNNER_REQUEST plan: the session view needs a sandbox backend\n"
    );
    let mut missing = server.send(&Request {
        cwd: "/nonexistent-dir".into(),
        ..request("true")
    });
    pid_of(&missing.line(), "runner ");
    assert_eq!(missing.line(), format!("workdir {}\n", libc::ENOENT));
    let mut good = server.send(&request("exit 0"));
    pid_of(&good.line(), "runner ");
    assert!(good.line().starts_with("started "));
    assert_eq!(good.line(), "exit 0\n");
    drop(server.socket);
    server.child.wait().unwrap();
}

#[test]
fn what_a_killed_runner_left_is_ended_and_the_server_ends_with_its_socket() {
    let mut server = server();
    let mut escaping = server.send(&request("setsid sleep 300 & echo $!; sleep 300"));
    let runner = pid_of(&escaping.line(), "runner ");
    assert!(escaping.line().starts_with("started "));
    let mut line = String::new();
    BufReader::new(&escaping.stdout)
        .read_line(&mut line)
        .unwrap();
    let escaped = Pid::from_raw(line.trim().parse().unwrap());
    // A second command that must outlive the server, held by its own lifeline.
    let mut lasting = server.send(&request("sleep 300"));
    let lasting_runner = pid_of(&lasting.line(), "runner ");
    let lasting_bash = pid_of(&lasting.line(), "started ");

    kill(runner, Signal::SIGKILL).unwrap();
    wait_until("the escaped sleep to end", || gone(escaped));
    assert!(!gone(lasting_bash));

    drop(server.socket);
    server.child.wait().unwrap();
    assert!(
        !gone(lasting_runner) && !gone(lasting_bash),
        "the server's end ended a runner"
    );
    drop(lasting);
    wait_until("the lasting command to end with its lifeline", || {
        gone(lasting_runner) && gone(lasting_bash)
    });
}
