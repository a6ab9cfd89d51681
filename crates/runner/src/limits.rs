//! Resource limits of one command: joining its session's cgroups (pids, memory; prepared by the host) and a
//! process-count rlimit for when the command runs in its own user namespace, where the kernel counts its
//! processes apart from the host's.

use std::ffi::CString;
use std::os::fd::{AsFd, OwnedFd};

use rustix::fs::{Mode, OFlags};

pub struct Prepared {
    /// `cgroup.procs` of each cgroup to join, opened before the fork.
    procs: Vec<OwnedFd>,
    nproc: Option<u64>,
}

/// # Errors
/// The cgroup that cannot be joined; the command must then not run (its limits would not hold).
pub fn prepare(cgroups: &[String], nproc: Option<u64>) -> Result<Prepared, String> {
    let mut procs = Vec::new();
    for dir in cgroups {
        let path = CString::new(format!("{dir}/cgroup.procs")).map_err(|_| "sandbox cgroup: NUL in path".to_string())?;
        let fd = rustix::fs::open(path.as_c_str(), OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| format!("sandbox cgroup {dir}: {}", std::io::Error::from(e)))?;
        procs.push(fd);
    }
    Ok(Prepared { procs, nproc })
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
        let limit = rustix::process::Rlimit { current: Some(n), maximum: Some(n) };
        match rustix::process::setrlimit(rustix::process::Resource::Nproc, limit) {
            Ok(()) => 0,
            Err(e) => e.raw_os_error(),
        }
    }
}

/// Sets the process-count limit and execs `argv` (only returns the error that stopped it). bubblewrap runs this as
/// the first program of its sandbox, inside the user namespace it made, so the count is the command's own.
pub fn exec_limited(nproc: u64, argv: &[String]) -> String {
    let limit = rustix::process::Rlimit { current: Some(nproc), maximum: Some(nproc) };
    if let Err(e) = rustix::process::setrlimit(rustix::process::Resource::Nproc, limit) {
        return format!("process limit: {}", std::io::Error::from(e));
    }
    let error = std::os::unix::process::CommandExt::exec(std::process::Command::new(&argv[0]).args(&argv[1..]));
    format!("exec {}: {error}", argv[0])
}
