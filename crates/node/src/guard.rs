//! The boundary between JavaScript and the core: panics and core errors become JS errors with a `code`,
//! and JS numbers are checked before they become offsets, sizes and ids.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::Either;
use shellring_core::{ChunkKind, Error as CoreError, Stream};

/// The error code is the status string: napi-rs passes it to `napi_create_error` as the `code` property.
// Named `Result` because `#[napi]` recognizes a fallible function by that last path segment.
pub type Result<T> = napi::Result<T, &'static str>;

pub const PANIC: &str = "SHELLRING_PANIC";
pub const INVALID_ARGUMENT: &str = "SHELLRING_INVALID_ARGUMENT";
/// An N-API call failed (in practice: V8 could not allocate a Buffer).
pub const NAPI: &str = "SHELLRING_NAPI";

pub fn error(code: &'static str, message: impl ToString) -> napi::Error<&'static str> {
    napi::Error::new(code, message)
}

pub fn core_error(e: CoreError) -> napi::Error<&'static str> {
    error(e.code(), e)
}

/// Runs one exported call, turning a panic into a JS error instead of unwinding into Node (which aborts
/// the process, and with it every other session the server hosts).
pub fn guard<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    // The registry recovers poisoned locks, so state touched by a panicking call stays usable.
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_owned());
            Err(error(
                PANIC,
                format!("shellring native code panicked: {detail}"),
            ))
        }
    }
}

/// A JS number as a count or offset: a non-negative integer, or `Infinity` for "no limit". Numbers past
/// 2^53 are allowed (they lose precision in JS anyway) and saturate.
pub fn count(name: &str, value: f64) -> Result<u64> {
    if value == f64::INFINITY {
        return Ok(u64::MAX);
    }
    if value.is_nan() || value < 0.0 || value.fract() != 0.0 {
        return Err(error(
            INVALID_ARGUMENT,
            format!("invalid {name}: expected a non-negative integer, got {value}"),
        ));
    }
    Ok(value as u64)
}

pub fn size(name: &str, value: f64) -> Result<usize> {
    count(name, value).map(|v| usize::try_from(v).unwrap_or(usize::MAX))
}

/// An id is a positive integer; any other number names no capture and gets the same error as an id that
/// was never issued.
pub fn id(value: f64) -> Result<u64> {
    if value >= 1.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 {
        return Ok(value as u64);
    }
    let shown = match value {
        f64::INFINITY => "Infinity".to_owned(),
        f64::NEG_INFINITY => "-Infinity".to_owned(),
        v => v.to_string(),
    };
    Err(error(
        "SHELLRING_UNKNOWN_CAPTURE",
        format!("unknown capture {shown}"),
    ))
}

pub fn stream(value: u32) -> Result<Stream> {
    Stream::from_index(value).ok_or_else(|| {
        error(
            INVALID_ARGUMENT,
            format!("invalid stream: expected 0 (stdout) or 1 (stderr), got {value}"),
        )
    })
}

/// A chunk kind as its number (0 stdout, 1 stderr, 2 log: what the hot path passes, no string to decode)
/// or its name.
pub fn kind(value: &Either<u32, String>) -> Result<ChunkKind> {
    match value {
        Either::A(0) => Ok(ChunkKind::Stdout),
        Either::A(1) => Ok(ChunkKind::Stderr),
        Either::A(2) => Ok(ChunkKind::Log),
        Either::A(n) => Err(error(
            INVALID_ARGUMENT,
            format!("invalid chunk kind: expected 0 (stdout), 1 (stderr) or 2 (log), got {n}"),
        )),
        Either::B(name) => ChunkKind::parse(name).ok_or_else(|| {
            error(
                INVALID_ARGUMENT,
                format!(
                    "invalid chunk kind: expected \"stdout\", \"stderr\" or \"log\", got {name:?}"
                ),
            )
        }),
    }
}

/// Offsets and totals go back to JS as numbers: exact up to 2^53 bytes, far beyond any stream.
pub fn num(value: u64) -> f64 {
    value as f64
}
