//! What the runner's end-to-end tests share: starting the binary with a socket on fd 3, and watching processes end.

use nix::unistd::Pid;
use shellring_runner::wire::plan::Plan;
use shellring_runner::wire::request::Request;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Spawns `command` with `fd3` on its fd 3 (without close-on-exec); our copy is closed once the child has its own.
pub fn spawn_with_fd3(command: &mut Command, fd3: OwnedFd) -> Child {
    let fd = fd3.as_raw_fd();
    // SAFETY: dup2 is async-signal-safe; it puts the socket on fd 3 in the child.
    unsafe {
        command.pre_exec(move || {
            if libc::dup2(fd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command.spawn().unwrap();
    drop(fd3);
    child
}

/// True once the pid is gone or a zombie.
pub fn gone(pid: Pid) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .unwrap()
            .trim_start()
            .starts_with('Z'),
    }
}

/// Waits up to 5 s for `check`.
pub fn wait_until(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A plan that runs `text` unconfined (struct update syntax adds the confinement).
pub fn command(text: &str) -> Plan {
    Plan {
        command: text.into(),
        ..Plan::default()
    }
}

/// The request frame a `--run` runner reads on fd 3: `plan` run in `cwd` with the test's own environment.
pub fn request_frame(plan: Plan, cwd: &std::path::Path) -> Vec<u8> {
    Request {
        cwd: cwd.to_string_lossy().into_owned(),
        plan,
        env: std::env::vars().collect(),
        terminal: None,
        stdin: None,
    }
    .record()
}

/// Starts `shellring-runner --run` on `plan` (its stdio on /dev/null), the request written on its status socket;
/// returns the runner and this side of that socket.
pub fn run(plan: Plan) -> (Child, std::fs::File) {
    use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};
    use std::io::Write;
    use std::process::Stdio;
    let (ours, theirs) = socketpair(
        AddressFamily::Unix,
        SockType::Stream,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .unwrap();
    let mut runner = Command::new(env!("CARGO_BIN_EXE_shellring-runner"));
    runner
        .arg("--run")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = spawn_with_fd3(&mut runner, theirs);
    let mut ours = std::fs::File::from(ours);
    ours.write_all(&request_frame(plan, &std::env::temp_dir()))
        .unwrap();
    (child, ours)
}
