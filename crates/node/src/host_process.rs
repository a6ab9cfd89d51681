//! The host process's own protection: non-dumpable, so same-uid processes (the commands it runs) cannot read its
//! `/proc/<pid>/environ` or `mem`, nor ptrace it; its environment may hold every secret of the deployment.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use napi_derive::napi;

use crate::guard::{error, guard, Result};

/// Marks this process non-dumpable (PR_SET_DUMPABLE 0). A process it execs is dumpable again.
#[napi]
pub fn set_non_dumpable() -> Result<()> {
    guard(|| {
        // SAFETY: PR_SET_DUMPABLE changes a flag of this process and touches no memory of ours.
        if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
            return Err(error("SHELLRING_IO", std::io::Error::last_os_error()));
        }
        Ok(())
    })
}

/// Whether this process is dumpable (PR_GET_DUMPABLE), for tests.
#[napi]
pub fn is_dumpable() -> bool {
    // SAFETY: PR_GET_DUMPABLE only reads a flag of this process.
    unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) == 1 }
}
