//! A session sandbox (`--session --serve`, its plan framed on stdin): the session's view, built once — its cgroups joined, a fresh
//! session keyring, its mount, IPC, pid and (with the network denied) network namespaces, bubblewrap's filter —
//! around a fork server inside it, whose runners add only their command's own Landlock domain (made from the one
//! ruleset the server built for the session), seccomp filter, limits and lifeline. Says `ready` on stdout once that server serves; otherwise `error <what>` and exits, and the
//! host confines the session's calls one by one instead.

use std::os::fd::{AsRawFd, OwnedFd};

use super::server;
use crate::confine::landlock::{self, Ruleset};
use crate::confine::{
    bwrap, caps, fds, host_pid, idmap, keyring, limits, mount_ns, net, pid_ns, seccomp,
};
use crate::failure::{Failed, RunnerError};
use crate::wire::fields::read_framed;
use crate::wire::plan::{self, Backend, NetFilter, Plan};
use crate::wire::stage;

/// Reads the plan on stdin, builds the sandbox and serves inside it; returns the exit code of the process left
/// outside.
pub fn serve(socket: OwnedFd) -> u8 {
    let plan = read_framed(&mut std::io::stdin().lock())
        .and_then(|body| plan::session_plan(&body))
        .map_err(RunnerError::Request);
    match plan.and_then(|plan| build(plan, socket).map_err(RunnerError::Setup)) {
        Ok(code) => code,
        Err(error) => {
            println!("{}", error.line());
            1
        }
    }
}

fn build(mut plan: Plan, socket: OwnedFd) -> Result<u8, String> {
    // The process count is each command's (its runner sets it); the cgroups are the session's, joined here while
    // cgroupfs is still writable, so every process of the sandbox counts in them.
    plan.nproc = None;
    let joined = limits::prepare(&plan.cgroups, &plan.cgroup_limits, None)?.join();
    if joined != 0 {
        return Err(Failed::new(stage::CGROUP, joined).detail());
    }
    keyring::fresh();
    let host_proc = host_pid::open().map_err(|e| format!("sandbox open /proc: {e}"))?;
    // The view has no room for the host's working directory; each command names its own.
    std::env::set_current_dir("/").map_err(|e| format!("sandbox chdir /: {e}"))?;
    match &plan.backend {
        Backend::Landlock => {
            host_pid::keep(host_proc);
            landlock(&plan, socket)
        }
        Backend::Bubblewrap(path) => bubblewrap(&plan, path, host_proc),
        Backend::None => Err("a session sandbox needs a backend".into()),
    }
}

/// The Landlock backend: the namespaces of `mount_ns` entered here; this process stays outside as the monitor of
/// the pid namespace's first process, which is the fork server.
fn landlock(plan: &Plan, socket: OwnedFd) -> Result<u8, String> {
    let namespace = mount_ns::prepare(plan)?;
    if let Err(f) = namespace.enter() {
        let step = *mount_ns::STEPS.get(f.step).unwrap_or(&"?");
        return Err(Failed::naming(stage::NAMESPACE, f.errno, step).detail());
    }
    // Still holding the namespace's capabilities: its loopback and the proxy's listener, made and handed out.
    if plan.domains {
        net::open_way_out()?;
    }
    // Entering a user namespace changed credentials, which cleared the parent-death signal: the sandbox ends with
    // the runtime that built it.
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    // SAFETY: this process is single-threaded and has just unshared its pid namespace; the monitor outside closes
    // its copy of the server's socket (passed as the descriptor it drops), so only the server holds it.
    match unsafe { pid_ns::split(socket.as_raw_fd()) } {
        pid_ns::Status::Inside(to_monitor) => {
            // The monitor learns of the server's end by waiting for it; it needs nothing written.
            let _ = nix::unistd::close(to_monitor);
            let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
            if let Err(f) = mount_ns::mount_proc() {
                return Err(format!(
                    "sandbox namespace mount proc: {}",
                    std::io::Error::from_raw_os_error(f.errno)
                ));
            }
            // Every command of the session enforces this one ruleset: built here, once, in the finished view.
            Ruleset::prepare(landlock::abi(), &landlock::Policy::of(plan))
                .map_err(|e| format!("sandbox {e}"))?;
            // Nothing here execs but the commands, which drop every capability: the bounding set goes once.
            match caps::drop_bounding() {
                0 => {}
                errno => return Err(Failed::new(stage::CAPS, errno).detail()),
            }
            Ok(server::serve(socket, true))
        }
        pid_ns::Status::Failed(errno) => Err(format!(
            "sandbox pid namespace: {}",
            std::io::Error::from_raw_os_error(errno)
        )),
    }
}

/// The bubblewrap backend: this process becomes bubblewrap, which runs the runner's own `--serve-inside` as its
/// program, with the server's socket (fd 3) passed through and the session's filter installed.
fn bubblewrap(plan: &Plan, path: &str, host_proc: OwnedFd) -> Result<u8, String> {
    // The whole sandbox's filter: in domains mode its server makes the listener, and its commands reach it.
    let network = match plan.domains {
        true => Some(NetFilter::Domains),
        false => plan.network_filter(),
    };
    let filter = seccomp::command_filter(network)?;
    let program = seccomp::program_fd(&filter)?;
    let mut errno = match fds::inherit(program.as_raw_fd()) {
        0 => fds::inherit(host_proc.as_raw_fd()),
        errno => errno,
    };
    if errno == 0 && plan.domains {
        errno = fds::inherit(net::CHANNEL_FD);
    }
    if errno != 0 {
        return Err(format!(
            "sandbox seccomp: {}",
            std::io::Error::from_raw_os_error(errno)
        ));
    }
    let me = bwrap::own_path()?;
    let mut args = bwrap::bwrap_args(plan, path, Some(program.as_raw_fd()), Some(&me));
    args.extend([
        me,
        "--serve-inside".to_string(),
        host_proc.as_raw_fd().to_string(),
    ]);
    if plan.domains {
        args.push("--domains".to_string());
    }
    let args = bwrap::to_c(args)?;
    // bubblewrap builds its view from this process's mounts: a root runner's system trees are idmapped first.
    if let Some(idmap) = idmap::prepare()? {
        match idmap.enter() {
            0 => {}
            errno => return Err(Failed::naming(stage::NAMESPACE, errno, idmap::STEP).detail()),
        }
    }
    // The whole sandbox in one Landlock domain that reaches no abstract unix socket made outside it (bubblewrap keeps
    // the host's network namespace under network allow); no_new_privs first, as bubblewrap sets for its filter.
    if let Some(scope) =
        Ruleset::abstract_unix_scope(landlock::abi()).map_err(|e| format!("sandbox {e}"))?
    {
        let _ = nix::sys::prctl::set_no_new_privs();
        match scope.restrict_self() {
            0 => {}
            errno => return Err(Failed::new(stage::LANDLOCK, errno).detail()),
        }
    }
    let error = nix::unistd::execvp(&args[0], &args).err();
    Err(format!(
        "spawn {path}: {}",
        error.map_or_else(String::new, |e| e.desc().to_string())
    ))
}
