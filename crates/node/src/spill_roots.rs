//! Spill roots that outlive a crashed runtime: the lock a live runtime holds, and the sweep at start.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use std::os::fd::IntoRawFd;
use std::path::Path;

use napi_derive::napi;
use shellring_core::spill_root;

use crate::guard::{core_error, guard, Result};

/// Marks `root` as a live runtime's spill root; returns the fd that holds the lock (close it with `closeFd`).
#[napi]
pub fn lock_spill_root(root: String) -> Result<i32> {
    guard(|| {
        spill_root::lock(Path::new(&root))
            .map(IntoRawFd::into_raw_fd)
            .map_err(core_error)
    })
}

/// Removes the spill roots under `parent` that no live runtime holds; returns how many.
#[napi]
pub fn reclaim_spill_roots(parent: String) -> Result<u32> {
    guard(|| Ok(spill_root::reclaim(Path::new(&parent)) as u32))
}
