//! shellring-runner: runs one `bash -c <command>` as a subreaper, optionally confined, and reports its exit out of
//! band on fd 3.
//!
//! Protocol (one line each, on fd 3, a socket whose peer is the supervising Node process; the lines are
//! `shellring_wire::status`): `started <pid> <enforcement>` once the command runs (`none`, `full` or `partial`), then
//! `exit <code>` or `signal <number>` the moment it ends, or `error <code> <detail>` when the runner itself failed and
//! the command did not run (the codes and a failed step's tokens: `shellring_wire::stage`). Nothing the command
//! prints travels on fd 3, and the runner's own exit code carries nothing, so no output or exit status the command
//! chooses can pass for a runner failure, nor the other way round.
//! The runner lives until every descendant has ended. When fd 3 reaches end-of-file (the supervisor closed it or
//! its process died), the runner's parent dies, or the runner gets SIGTERM/SIGINT/SIGHUP, it SIGKILLs every
//! descendant, including those that left the process group with `setsid` or a double fork: as the child subreaper
//! it inherits them all.
//! `--probe` prints what this kernel enforces, as one JSON line on stdout.
//! `--run` reads the command's request record (`shellring_wire::request`) from fd 3 before anything else.
//! `--serve` makes this process a fork server on fd 3 (`serve::server`): it forks a runner per command it is sent;
//! `--session --serve`, a session sandbox with such a server inside (`serve::session`), its plan framed on stdin.
//! `--stdio` serves many commands over stdin and stdout, framed (`stdio`): the remote end of an SSH channel.
//! `--check-request` prints a request record read on stdin as decoded (`--completed`: as `--stdio` completes it with
//! this host's paths), and `--wire` the description of every format (`shellring_wire::spec`): the host's encoders and
//! its read policy are tested against them.

use shellring_runner::cli::{self, Invocation};
use shellring_runner::confine::{host_pid, limits, mount_ns, net, probe};
use shellring_runner::life::{command, sched, status, supervise};
use shellring_runner::serve::{server, session};
use shellring_runner::stdio::{mux, policy};
use shellring_runner::wire::{json::Json, request, spec};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before anything is forked or joins a cgroup: every mode leads to commands.
    sched::drop_real_time();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::parse(&args) {
        Ok(Invocation::Run) => run(),
        Ok(Invocation::Probe) => print(&probe::json()),
        Ok(Invocation::Serve) => served(|socket| server::serve(socket, false)),
        Ok(Invocation::ServeInside { host_proc, domains }) => {
            host_pid::adopt(host_proc);
            // bubblewrap brought the namespace's loopback up; the listener goes to the host before `ready`.
            if domains {
                if let Err(e) = net::listener().and_then(|l| net::hand_over(&l)) {
                    println!("error sandbox network listener: {e}");
                    return ExitCode::from(1);
                }
            }
            served(|socket| server::serve(socket, true))
        }
        Ok(Invocation::Stdio) => ExitCode::from(mux::serve()),
        Ok(Invocation::SessionServe) => served(session::serve),
        Ok(Invocation::CheckRequest) => check_request(false),
        Ok(Invocation::CheckCompleted) => check_request(true),
        Ok(Invocation::Wire) => print(&spec::json(mount_ns::STEPS)),
        Ok(Invocation::ExecLimited { nproc, argv }) => {
            let error = limits::exec_limited(nproc, &argv);
            eprintln!("shellring-runner: {error}");
            ExitCode::from(127)
        }
        Err(message) => {
            eprintln!("shellring-runner: {message}\n{}", cli::USAGE);
            ExitCode::from(2)
        }
    }
}

/// Prints a request record read on stdin as decoded (`completed`: then completed with this host's paths).
fn check_request(completed: bool) -> ExitCode {
    match request::read(&mut std::io::stdin().lock()) {
        Ok(mut request) => {
            if completed {
                policy::complete(&mut request.plan, &mut request.env, None);
            }
            let mut json = Json::default();
            request.encode(&mut json);
            print(&json.finish())
        }
        Err(message) => {
            eprintln!("shellring-runner: {message}");
            ExitCode::from(1)
        }
    }
}

fn print(line: &str) -> ExitCode {
    println!("{line}");
    ExitCode::SUCCESS
}

/// One command, its request read from the status socket on fd 3.
fn run() -> ExitCode {
    let Some(status) = status::Status::from_fd(3) else {
        eprintln!("shellring-runner: fd 3 is not open; it must be the status socket");
        return ExitCode::from(2);
    };
    match command::run_read(&status, None, false, supervise::Parent::Supervisor) {
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
