//! shellring-runner: runs one `bash -c <command>` as a subreaper, optionally confined, and reports its exit out of
//! band on fd 3.
//!
//! Protocol (one line each, on fd 3, a socket whose peer is the supervising Node process):
//! `started <pid> <enforcement>` once the command runs (`none`, `full` or `partial`), then `exit <code>` or
//! `signal <number>` the moment it ends, or `error <code> <detail>` when the runner itself failed and the command
//! did not run (the codes: `error::RunnerError`; a failed step's detail is its token, errno and OS text:
//! `stage`). Nothing the command prints travels on fd 3, and the
//! runner's own exit code carries nothing, so no output or exit status the command chooses can pass for a runner
//! failure, nor the other way round.
//! The runner lives until every descendant has ended. When fd 3 reaches end-of-file (the supervisor closed it or
//! its process died), the runner's parent dies, or the runner gets SIGTERM/SIGINT/SIGHUP, it SIGKILLs every
//! descendant, including those that left the process group with `setsid` or a double fork: as the child subreaper
//! it inherits them all.
//! `--probe` prints what this kernel enforces, as one JSON line on stdout.
//! `--run` reads the command's request frame (see `request`) from fd 3 before anything else.
//! `--serve` makes this process a fork server on fd 3 (see `serve`): it forks a runner per command it is sent;
//! `--session --serve`, a session sandbox with such a server inside (see `session`), its plan framed on stdin.
//! `--check-request` prints a request frame read on stdin as decoded (the host's encoder is tested against it).
//! `--stdio` serves many commands over stdin and stdout, framed (see `stdio`): the remote end of an SSH channel.

use shellring_runner::{
    check, host_pid, limits, plan, probe, request, sched, serve, session, status, stdio, supervise,
};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before anything is forked or joins a cgroup: every mode leads to commands.
    sched::drop_real_time();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match plan::parse(&args) {
        Ok(plan::Invocation::Run) => run(),
        Ok(plan::Invocation::Probe) => {
            println!("{}", probe::json());
            ExitCode::SUCCESS
        }
        Ok(plan::Invocation::Serve) => served(|socket| serve::serve(socket, false)),
        Ok(plan::Invocation::ServeInside { host_proc }) => {
            host_pid::adopt(host_proc);
            served(|socket| serve::serve(socket, true))
        }
        Ok(plan::Invocation::Stdio) => ExitCode::from(stdio::serve()),
        Ok(plan::Invocation::SessionServe) => served(session::serve),
        Ok(plan::Invocation::CheckRequest) => match request::read(&mut std::io::stdin().lock()) {
            Ok(request) => {
                println!("{}", check::json(&request));
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("shellring-runner: {message}");
                ExitCode::from(1)
            }
        },
        Ok(plan::Invocation::ExecLimited { nproc, argv }) => {
            let error = limits::exec_limited(nproc, &argv);
            eprintln!("shellring-runner: {error}");
            ExitCode::from(127)
        }
        Err(message) => {
            eprintln!("shellring-runner: {message}\n{}", plan::USAGE);
            ExitCode::from(2)
        }
    }
}

/// One command, its request read from the status socket on fd 3.
fn run() -> ExitCode {
    let Some(status) = status::Status::from_fd(3) else {
        eprintln!("shellring-runner: fd 3 is not open; it must be the status socket");
        return ExitCode::from(2);
    };
    match serve::run_read(&status, None, false, supervise::Parent::Supervisor) {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    }
}

/// Runs a server on fd 3, the socket its parent handed over.
fn served(server: impl FnOnce(OwnedFd) -> u8) -> ExitCode {
    // SAFETY: F_GETFD on an integer fd has no memory effects; a closed fd yields EBADF.
    if unsafe { libc::fcntl(3, libc::F_GETFD) } < 0 {
        eprintln!("shellring-runner: fd 3 is not open; it must be the server socket");
        return ExitCode::from(2);
    }
    // SAFETY: fd 3 is open (checked above) and handed to us by our parent; nothing else here owns it.
    let socket = unsafe { OwnedFd::from_raw_fd(3) };
    ExitCode::from(server(socket))
}
