//! A step of starting the command that failed, as the status line reports it: a stable token, the errno and the
//! OS's own text for it, then (after a tab) what the step named, if anything (`error RUNNER_SPAWN cgroup 22 Invalid
//! argument`, `error RUNNER_SPAWN exec 2 No such file or directory\t/usr/bin/bwrap`). The host words each token
//! (src/contract/runner-failures.ts); the runner says no words of its own.

/// The tokens, one per step; the host's table of words has exactly these.
pub const EXEC: &str = "exec";
pub const CAPS: &str = "caps";
pub const LANDLOCK: &str = "landlock";
pub const PARENT_GONE: &str = "parent-gone";
pub const FDS: &str = "fds";
pub const CGROUP: &str = "cgroup";
/// Making a session's cgroup (the subject: its directory), or writing one of its files (the subject: the file).
pub const CGROUP_MKDIR: &str = "cgroup-mkdir";
pub const CGROUP_FILE: &str = "cgroup-file";
pub const NPROC: &str = "nproc";
pub const SECCOMP: &str = "seccomp";
pub const PID_NS: &str = "pid-ns";
/// A step of making the command's namespaces; the subject is the step (`mount_ns::STEPS`).
pub const NAMESPACE: &str = "namespace";
/// No namespace was possible and the session view needs one (reported as `SandboxUnavailable`).
pub const VIEW: &str = "view";
/// The runner's own plumbing around the command: its report or output pipes, its fork, its signalfd, the
/// command's stdio.
pub const PIPE: &str = "pipe";
pub const FORK: &str = "fork";
pub const SIGNALFD: &str = "signalfd";
pub const STDIO: &str = "stdio";

/// A failed step: `errno` 0 where no system call failed (the step was impossible here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub token: &'static str,
    pub errno: i32,
    pub subject: Option<String>,
}

impl Failed {
    pub fn new(token: &'static str, errno: i32) -> Failed {
        Failed {
            token,
            errno,
            subject: None,
        }
    }

    pub fn naming(token: &'static str, errno: i32, subject: impl Into<String>) -> Failed {
        Failed {
            token,
            errno,
            subject: Some(subject.into()),
        }
    }

    /// What the status line carries after its code.
    pub fn detail(&self) -> String {
        let mut detail = self.token.to_string();
        if self.errno != 0 {
            detail = format!("{detail} {} {}", self.errno, os_text(self.errno));
        }
        if let Some(subject) = &self.subject {
            detail = format!("{detail}\t{subject}");
        }
        detail
    }
}

/// The OS's text for an errno (strerror), without Rust's `(os error N)` suffix, which the host adds back.
fn os_text(errno: i32) -> String {
    let mut buffer = [0 as libc::c_char; 256];
    // SAFETY: the buffer is writable for its whole length, and the XSI strerror_r writes a NUL-terminated string
    // into it when it returns 0.
    let found = unsafe { libc::strerror_r(errno, buffer.as_mut_ptr(), buffer.len()) } == 0;
    if !found {
        return format!("Unknown error {errno}");
    }
    // SAFETY: strerror_r returned 0, so the buffer holds a NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(buffer.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detail_is_the_token_the_errno_the_os_text_then_the_subject() {
        assert_eq!(
            Failed::new(CGROUP, libc::EINVAL).detail(),
            "cgroup 22 Invalid argument"
        );
        assert_eq!(
            Failed::naming(EXEC, libc::ENOENT, "/x y/bwrap").detail(),
            "exec 2 No such file or directory\t/x y/bwrap"
        );
        assert_eq!(Failed::new(VIEW, 0).detail(), "view");
        // The text is the one Rust's own io::Error shows before its suffix.
        for errno in [libc::EPERM, libc::EACCES, libc::EMFILE, libc::ENOEXEC] {
            assert_eq!(
                format!("{} (os error {errno})", os_text(errno)),
                std::io::Error::from_raw_os_error(errno).to_string()
            );
        }
    }
}
