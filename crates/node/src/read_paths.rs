//! The host's part of a local command's read policy, derived on a libuv thread (it lists a few directories) by the
//! code the runner uses on a remote host (crates/hostpaths).

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use napi_derive::napi;
use shellring_hostpaths::read_paths;

/// What a read policy's entries and a PATH name on this host (see `shellring_hostpaths::ReadPaths`).
#[napi(object)]
pub struct HostReadPaths {
    pub homes: Vec<String>,
    pub denied: Vec<String>,
    pub toolchains: Vec<String>,
    pub resolver: Option<String>,
    pub consulted: Vec<String>,
}

pub struct Derive {
    entries: Vec<String>,
    path: String,
    home: String,
}

impl napi::Task for Derive {
    type Output = HostReadPaths;
    type JsValue = HostReadPaths;

    fn compute(&mut self) -> napi::Result<HostReadPaths> {
        let found =
            std::panic::catch_unwind(|| read_paths(&self.entries, &self.path, Some(&self.home)))
                .map_err(|_| {
                    napi::Error::from_reason("shellring native code panicked: hostReadPaths")
                })?;
        Ok(HostReadPaths {
            homes: found.homes,
            denied: found.denied,
            toolchains: found.toolchains,
            resolver: found.resolver,
            consulted: found.consulted,
        })
    }

    fn resolve(&mut self, _env: napi::Env, output: HostReadPaths) -> napi::Result<HostReadPaths> {
        Ok(output)
    }
}

/// The read paths of `entries` and `path` on this host, `home` being this process's home directory.
#[napi]
pub fn host_read_paths(
    entries: Vec<String>,
    path: String,
    home: String,
) -> napi::bindgen_prelude::AsyncTask<Derive> {
    napi::bindgen_prelude::AsyncTask::new(Derive {
        entries,
        path,
        home,
    })
}
