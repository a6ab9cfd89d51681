//! Capture options and their defaults.

use std::path::PathBuf;

use crate::error::Error;
use crate::ring::RingOptions;

/// How a capture keeps its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Tail cap of stdout in bytes.
    pub stdout_cap: usize,
    /// Tail cap of stderr in bytes.
    pub stderr_cap: usize,
    /// Directory for spill files; without it an overflowing stream's spill is unavailable.
    pub spill_dir: Option<PathBuf>,
    /// File name stem inside `spill_dir`; `capture-<id>` when absent.
    pub spill_name: Option<String>,
    /// Largest spill file in bytes.
    pub spill_cap: u64,
    /// A job ring, off when absent.
    pub ring: Option<RingOptions>,
}

impl CaptureOptions {
    pub const DEFAULT_TAIL_CAP: usize = 64_000;
    pub const DEFAULT_SPILL_CAP: u64 = 67_108_864;

    /// Checks what the type cannot: the spill name must stay inside the spill directory.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptions`] for an empty name, `.`, `..`, or a name holding `/` or NUL.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(name) = &self.spill_name {
            if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
                return Err(Error::InvalidOptions(format!(
                    "spillName must be a plain file name, got {name:?}"
                )));
            }
        }
        Ok(())
    }
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            stdout_cap: Self::DEFAULT_TAIL_CAP,
            stderr_cap: Self::DEFAULT_TAIL_CAP,
            spill_dir: None,
            spill_name: None,
            spill_cap: Self::DEFAULT_SPILL_CAP,
            ring: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let o = CaptureOptions::default();
        assert_eq!(
            (o.stdout_cap, o.stderr_cap, o.spill_cap),
            (64_000, 64_000, 67_108_864)
        );
        assert_eq!((o.spill_dir, o.spill_name, o.ring), (None, None, None));
    }

    #[test]
    fn spill_names_stay_inside_the_directory() {
        for bad in ["", ".", "..", "a/b", "a\0b"] {
            let o = CaptureOptions {
                spill_name: Some(bad.into()),
                ..Default::default()
            };
            assert!(o.validate().is_err(), "{bad:?}");
        }
        let o = CaptureOptions {
            spill_name: Some("job-1".into()),
            ..Default::default()
        };
        assert_eq!(o.validate(), Ok(()));
    }
}
