//! Pipes whose read ends native threads drain into captures: the output path that bypasses JavaScript.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use napi_derive::napi;
use shellring_core::{reader, registry};

use crate::guard::{core_error, guard, id, stream, Result};

/// Creates a pipe for a child's stdout or stderr; returns `[readFd, writeFd]`, both close-on-exec.
#[napi]
pub fn pipe() -> Result<Vec<i32>> {
    guard(|| {
        let (read, write) = reader::pipe().map_err(core_error)?;
        Ok(vec![read, write])
    })
}

/// Hands `fd` (a pipe's read end from [`pipe`]) to a native thread that drains it into the capture's
/// stream until end-of-file or `finish`. The capture owns and closes `fd` from now on, even on error.
#[napi]
pub fn attach_reader(capture: f64, stream_id: u32, fd: i32) -> Result<()> {
    guard(|| {
        let capture = match id(capture) {
            Ok(capture) => capture,
            Err(e) => {
                // SAFETY: the caller handed fd over.
                unsafe { libc::close(fd) };
                return Err(e);
            }
        };
        registry::attach_reader(capture, stream(stream_id)?, fd).map_err(core_error)
    })
}

/// True once every pipe attached to the capture reached end-of-file (or none was attached).
#[napi]
pub fn readers_done(capture: f64) -> Result<bool> {
    guard(|| Ok(registry::readers_done(id(capture)?)))
}

/// Closes an fd returned by [`pipe`] that the caller still owns (the write end, once the child holds a copy).
#[napi]
pub fn close_fd(fd: i32) -> Result<()> {
    guard(|| {
        // SAFETY: closing an integer fd has no memory effects; the caller owns it.
        if unsafe { libc::close(fd) } != 0 {
            return Err(crate::guard::error("SHELLRING_IO", std::io::Error::last_os_error()));
        }
        Ok(())
    })
}
