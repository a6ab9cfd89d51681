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

/// The sweep of [`reclaim_spill_roots`] on a libuv thread: removing a crashed runtime's files can take long, and
/// the event loop serves every session meanwhile.
pub struct Reclaim {
    parent: String,
}

impl napi::Task for Reclaim {
    type Output = u32;
    type JsValue = u32;

    fn compute(&mut self) -> napi::Result<u32> {
        std::panic::catch_unwind(|| spill_root::reclaim(Path::new(&self.parent)) as u32).map_err(
            |_| {
                napi::Error::from_reason("shellring native code panicked: reclaimRootsInBackground")
            },
        )
    }

    fn resolve(&mut self, _env: napi::Env, output: u32) -> napi::Result<u32> {
        Ok(output)
    }
}

/// Like [`reclaim_spill_roots`], off the event loop; resolves with how many roots were removed.
#[napi]
pub fn reclaim_roots_in_background(parent: String) -> napi::bindgen_prelude::AsyncTask<Reclaim> {
    napi::bindgen_prelude::AsyncTask::new(Reclaim { parent })
}
