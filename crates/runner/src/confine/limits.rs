//! Resource limits of one command: joining its session's cgroups (pids, memory, cpu; made and limited here, by
//! the first command of the session, so the host never waits on cgroupfs) and a
//! process-count rlimit for when the command runs in its own user namespace, where the kernel counts its
//! processes apart from the host's.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::OnceLock;

use rustix::fs::{Mode, OFlags};

use crate::failure::Failed;
use crate::wire::stage;

/// The cgroups and limits this process joined as a session's spawner: the runners it forks are born in them.
static JOINED: OnceLock<(Vec<String>, Vec<String>)> = OnceLock::new();

/// Records that this process (a session's spawner) joined `cgroups` with `limits`.
pub fn joined_as_spawner(cgroups: Vec<String>, limits: Vec<String>) {
    let _ = JOINED.set((cgroups, limits));
}

/// True in a runner whose spawner joined exactly `cgroups` with `limits`: it has nothing to join itself.
pub fn joined(cgroups: &[String], limits: &[String]) -> bool {
    !cgroups.is_empty()
        && JOINED
            .get()
            .is_some_and(|(c, l)| c == cgroups && l == limits)
}

pub struct Prepared {
    /// `cgroup.procs` of each cgroup to join, opened before the fork.
    procs: Vec<OwnedFd>,
    nproc: Option<u64>,
}

/// # Errors
/// The cgroup that cannot be made, limited or joined; the command must then not run (its limits would not hold).
pub fn prepare(
    cgroups: &[String],
    limits: &[String],
    nproc: Option<u64>,
) -> Result<Prepared, String> {
    let mut procs = Vec::new();
    for dir in cgroups {
        let fail = |file: &str, e: rustix::io::Errno| {
            Failed::naming(
                stage::CGROUP_FILE,
                e.raw_os_error(),
                format!("{dir}/{file}"),
            )
            .detail()
        };
        // Concurrent first commands of one session may both make it: EEXIST is the other one's success.
        match rustix::fs::mkdir(dir.as_str(), Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => {
                let failed = Failed::naming(stage::CGROUP_MKDIR, e.raw_os_error(), dir);
                return Err(failed.detail());
            }
        }
        // Written by every command, not only the one that made the cgroup: a command that joins must never find
        // it still unlimited. Writing the same value again is a no-op for the kernel.
        for limit in limits {
            let (optional, limit) = match limit.strip_prefix('?') {
                Some(rest) => (true, rest),
                None => (false, limit.as_str()),
            };
            let Some((name, value)) = limit.split_once('=') else {
                continue;
            };
            match write_control(&format!("{dir}/{name}"), value) {
                // Another hierarchy's file (a v1 hierarchy holds one controller's files).
                Err(rustix::io::Errno::NOENT) => {}
                Err(_) if optional => {}
                Err(e) => return Err(fail(name, e)),
                Ok(()) => {}
            }
        }
        let fd = rustix::fs::open(
            format!("{dir}/cgroup.procs").as_str(),
            OFlags::WRONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| fail("cgroup.procs", e))?;
        procs.push(fd);
    }
    Ok(Prepared { procs, nproc })
}

fn write_control(path: &str, value: &str) -> Result<(), rustix::io::Errno> {
    let fd = rustix::fs::open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    rustix::io::write(&fd, value.as_bytes()).map(|_| ())
}

impl Prepared {
    /// Moves the calling process into every prepared cgroup ("0" names the writer). Before any namespace.
    pub fn join(&self) -> i32 {
        for fd in &self.procs {
            if let Err(e) = rustix::io::write(fd.as_fd(), b"0") {
                return e.raw_os_error();
            }
        }
        0
    }

    /// The process-count limit; set after entering a user namespace, so the count is this command's alone and
    /// the host's own limit stays what the namespace inherited.
    pub fn restrict(&self) -> i32 {
        let Some(n) = self.nproc else { return 0 };
        let limit = rustix::process::Rlimit {
            current: Some(n),
            maximum: Some(n),
        };
        match rustix::process::setrlimit(rustix::process::Resource::Nproc, limit) {
            Ok(()) => 0,
            Err(e) => e.raw_os_error(),
        }
    }
}

/// Sets the process-count limit and execs `argv` (only returns the error that stopped it). bubblewrap runs this as
/// the first program of its sandbox, inside the user namespace it made, so the count is the command's own.
pub fn exec_limited(nproc: u64, argv: &[String]) -> String {
    let limit = rustix::process::Rlimit {
        current: Some(nproc),
        maximum: Some(nproc),
    };
    if let Err(e) = rustix::process::setrlimit(rustix::process::Resource::Nproc, limit) {
        return format!("process limit: {}", std::io::Error::from(e));
    }
    let error = std::os::unix::process::CommandExt::exec(
        std::process::Command::new(&argv[0]).args(&argv[1..]),
    );
    format!("exec {}: {error}", argv[0])
}
