//! The runner's own failures (the command did not run): each kind has a stable code the host reads from the status
//! line, so no host ever tells them apart by their wording. A failed step of starting the command carries its
//! stable token and errno as the detail (`stage::Failed`), which the host words.

use std::fmt;

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
            RunnerError::Request(_) => "RUNNER_REQUEST",
            RunnerError::Setup(_) => "RUNNER_SETUP",
            RunnerError::Spawn(_) => "RUNNER_SPAWN",
            RunnerError::SandboxUnavailable(_) => "RUNNER_SANDBOX_UNAVAILABLE",
        }
    }

    /// The status line reporting this failure.
    pub fn line(&self) -> String {
        format!("error {} {self}", self.code())
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
        assert_eq!(
            RunnerError::Setup("signalfd: y".into()).to_string(),
            "signalfd: y"
        );
    }
}
