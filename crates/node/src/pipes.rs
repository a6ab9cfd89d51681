//! Pipes whose read ends the native reactor drains into captures: the output path that bypasses JavaScript.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use std::time::Duration;

use napi::bindgen_prelude::Object;
use napi::{Env, JsDeferred};
use napi_derive::napi;
use shellring_core::{pipe as pipes, registry};

use crate::guard::{core_error, count, guard, id, stream, Result};
use crate::js_buffer::JsValue;

/// Creates a pipe for a child's stdout or stderr; returns `[readFd, writeFd]`, both close-on-exec.
#[napi]
pub fn pipe() -> Result<Vec<i32>> {
    guard(|| {
        let (read, write) = pipes::pipe().map_err(core_error)?;
        Ok(vec![read, write])
    })
}

/// Hands `fd` (a pipe's read end from [`pipe`]) to the native reactor, which drains it into the capture's
/// stream until end-of-file, `drain` or `finish`. The capture owns and closes `fd` from now on, even on error.
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

type Settle = fn(Env) -> napi::Result<()>;

/// Ends the capture once every attached pipe reached end-of-file, or after `within_ms`, reading first every
/// byte the pipes hold then. The promise resolves (an event from the reactor, no polling) once the capture is
/// finished: its tails, ring and spill files are final.
#[napi(ts_return_type = "Promise<void>")]
pub fn drain(env: Env, capture: f64, within_ms: f64) -> Result<JsValue> {
    guard(|| {
        let (capture, within) = (id(capture)?, count("withinMs", within_ms)?);
        let (deferred, promise): (JsDeferred<(), Settle>, Object<'_>) = env
            .create_deferred()
            .map_err(|e| crate::guard::error(crate::guard::NAPI, e))?;
        let settle: Settle = |_| Ok(());
        registry::drain(
            capture,
            Duration::from_millis(within),
            Box::new(move || deferred.resolve(settle)),
        )
        .map_err(core_error)?;
        Ok(JsValue::of(&promise))
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
            return Err(crate::guard::error(
                "SHELLRING_IO",
                std::io::Error::last_os_error(),
            ));
        }
        Ok(())
    })
}
