//! The errors of the capture registry: the only failures callers see (spill I/O never fails a call).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// No capture with this id exists (never created, or freed).
    UnknownCapture(u64),
    /// A ring operation on a capture created without a ring.
    NoRing(u64),
    /// The options cannot describe a capture (for example a spill name that is not a plain file name).
    InvalidOptions(String),
    /// A read into a buffer too small for the next character.
    BufferTooSmall { needed: usize, available: usize },
    /// An OS call of the pipe readers failed (creating a pipe, starting a thread).
    Io(String),
}

impl Error {
    /// A stable identifier for bindings to expose as an error code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnknownCapture(_) => "SHELLRING_UNKNOWN_CAPTURE",
            Error::NoRing(_) => "SHELLRING_NO_RING",
            Error::InvalidOptions(_) => "SHELLRING_INVALID_OPTIONS",
            Error::BufferTooSmall { .. } => "SHELLRING_BUFFER_TOO_SMALL",
            Error::Io(_) => "SHELLRING_IO",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownCapture(id) => write!(f, "unknown capture {id}"),
            Error::NoRing(id) => write!(f, "capture {id} has no ring"),
            Error::InvalidOptions(why) => write!(f, "invalid capture options: {why}"),
            Error::BufferTooSmall { needed, available } => write!(
                f,
                "buffer of {available} bytes cannot hold the next character ({needed} bytes)"
            ),
            Error::Io(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert_eq!(Error::UnknownCapture(7).to_string(), "unknown capture 7");
        assert_eq!(Error::NoRing(3).to_string(), "capture 3 has no ring");
        assert_eq!(Error::UnknownCapture(7).code(), "SHELLRING_UNKNOWN_CAPTURE");
    }
}
