//! shellring-runner: runs one `bash -c <command>` as a subreaper and reports its exit out of band on fd 3.
//!
//! Protocol (one line each, on fd 3, a socket whose peer is the supervising Node process):
//! `started <pid>` once bash runs, then `exit <code>` or `signal <number>` the moment bash ends, or
//! `error <what>: <reason>` when the runner itself failed and the command did not run. Nothing the command prints
//! travels on fd 3, so no output or exit code can pass for a runner failure.
//! The runner lives until every descendant has ended. When fd 3 reaches end-of-file (the supervisor closed it or
//! its process died) or the runner gets SIGTERM/SIGINT/SIGHUP, it SIGKILLs every descendant, including those that
//! left the process group with `setsid` or a double fork: as the child subreaper it inherits them all.

mod proc_tree;
mod spawn;
mod status;
mod supervise;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.as_slice() {
        [flag, command] if flag == "-c" => command.clone(),
        _ => {
            eprintln!("usage: shellring-runner -c <command>   (fd 3 must be the status socket)");
            return ExitCode::from(2);
        }
    };
    let status = match status::Status::from_fd(3) {
        Some(status) => status,
        None => {
            eprintln!("shellring-runner: fd 3 is not open; it must be the status socket");
            return ExitCode::from(2);
        }
    };
    supervise::run(&command, status)
}
