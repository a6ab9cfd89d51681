//! A version of the host process's environment: a cheap way for the main thread to tell whether `process.env`
//! changed since the last command, without enumerating it through Node's interceptor (tens of microseconds).

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use std::sync::{Mutex, PoisonError};

use napi_derive::napi;

use crate::guard::{guard, Result};

/// The environment block as last seen, and its version.
static SEEN: Mutex<(String, u32)> = Mutex::new((String::new(), 0));

/// A number that changes whenever this process's environment (the block `process.env` reads and writes on the main
/// thread) differs from the one the previous call saw; equal numbers mean an equal environment.
#[napi]
pub fn environ_version() -> Result<u32> {
    guard(|| {
        let now = block(std::env::vars_os());
        let mut seen = SEEN.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.0 != now {
            seen.0 = now;
            seen.1 = seen.1.wrapping_add(1);
        }
        Ok(seen.1)
    })
}

/// Every `NAME=value`, each followed by a NUL, in the block's order; bytes that are not UTF-8 read as U+FFFD, as
/// `process.env` shows them.
fn block(vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>) -> String {
    let mut out = String::new();
    for (name, value) in vars {
        out.push_str(&name.to_string_lossy());
        out.push('=');
        out.push_str(&value.to_string_lossy());
        out.push('\0');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn each_variable_ends_with_a_nul() {
        let vars = [("A", "1"), ("B", "x=y")].map(|(n, v)| (OsString::from(n), OsString::from(v)));
        assert_eq!(block(vars.into_iter()), "A=1\0B=x=y\0");
        assert_eq!(block(std::iter::empty()), "");
    }
}
