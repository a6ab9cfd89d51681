//! The runner's own failures (the command did not run): each kind has a stable code the host reads from the status
//! line, so no host ever tells them apart by their wording; a failed step of starting the command carries its stable
//! token and errno as the detail (`Failed`), which the host words. The codes and tokens are the wire's
//! (`shellring_wire::stage`).

use std::fmt;

use shellring_wire::stage;
use shellring_wire::status::Status;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunnerError {
    /// The request (or a session sandbox's plan) did not decode.
    Request(String),
    /// The runner could not set itself up around the command (signalfd, stdio, fork).
    Setup(String),
    /// Confining, forking or exec'ing the command failed.
    Spawn(String),
    /// The confinement asked for cannot be enforced on this host, and nothing may run with less.
    SandboxUnavailable(String),
}

impl RunnerError {
    /// The stable identifier the status line carries (`error <code> <message>`).
    pub fn code(&self) -> &'static str {
        match self {
            RunnerError::Request(_) => stage::REQUEST,
            RunnerError::Setup(_) => stage::SETUP,
            RunnerError::Spawn(_) => stage::SPAWN,
            RunnerError::SandboxUnavailable(_) => stage::SANDBOX_UNAVAILABLE,
        }
    }

    /// The status line reporting this failure.
    pub fn line(&self) -> String {
        Status::Error {
            code: self.code().into(),
            detail: self.to_string(),
        }
        .line()
    }
}

impl fmt::Display for RunnerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunnerError::Request(why)
            | RunnerError::Setup(why)
            | RunnerError::Spawn(why)
            | RunnerError::SandboxUnavailable(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RunnerError {}

/// Preparing a command's layers fails with the OS's words: a spawn failure unless said otherwise.
impl From<String> for RunnerError {
    fn from(why: String) -> RunnerError {
        RunnerError::Spawn(why)
    }
}

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

    /// What the status line carries after its code: the token, the errno and the OS's text, then a tab and the
    /// subject.
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
    fn lines_carry_the_code_then_the_words() {
        assert_eq!(
            RunnerError::Request("request: not a count: \"x\"".into()).line(),
            "error RUNNER_REQUEST request: not a count: \"x\""
        );
        assert_eq!(
            RunnerError::SandboxUnavailable("no namespace".into()).code(),
            "RUNNER_SANDBOX_UNAVAILABLE"
        );
        assert_eq!(
            RunnerError::from("spawn: x".to_string()).code(),
            "RUNNER_SPAWN"
        );
    }

    #[test]
    fn a_detail_is_the_token_the_errno_the_os_text_then_the_subject() {
        assert_eq!(
            Failed::new(stage::CGROUP, libc::EINVAL).detail(),
            "cgroup 22 Invalid argument"
        );
        assert_eq!(
            Failed::naming(stage::EXEC, libc::ENOENT, "/x y/bwrap").detail(),
            "exec 2 No such file or directory\t/x y/bwrap"
        );
        assert_eq!(Failed::new(stage::VIEW, 0).detail(), "view");
        // The text is the one Rust's own io::Error shows before its suffix.
        for errno in [libc::EPERM, libc::EACCES, libc::EMFILE, libc::ENOEXEC] {
            assert_eq!(
                format!("{} (os error {errno})", os_text(errno)),
                std::io::Error::from_raw_os_error(errno).to_string()
            );
        }
    }
}
