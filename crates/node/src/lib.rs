//! shellring-node: the napi-rs binding, synchronous calls by capture id over `shellring_core::registry`.
//!
//! Every call runs inside [`guard::guard`], so a panic reaches JS as an error with code `SHELLRING_PANIC`
//! and a core error as one with the core's code. Nothing here calls back into JS from another thread.

mod guard;
mod pipes;
mod shapes;

use napi::bindgen_prelude::{Buffer, BufferSlice};
use napi_derive::napi;
use shellring_core::registry;

use guard::{core_error, count, guard, id, kind, num, size, stream, Result};
use shapes::{
    NativeCaptureOptions, NativeObserveResult, NativeRingRead, NativeRingReadInto, NativeRingState,
    NativeStreamInfo,
};

/// Creates a capture; returns its id (ids start at 1 and are never reused in a process).
#[napi]
pub fn create(options: Option<NativeCaptureOptions>) -> Result<f64> {
    guard(|| {
        let options = match options {
            Some(o) => o.into_core()?,
            None => Default::default(),
        };
        registry::create(options).map(num).map_err(core_error)
    })
}

/// Writes bytes to stream 0 (stdout) or 1 (stderr): spill, tail, then the ring.
#[napi]
pub fn write(capture: f64, stream_id: u32, data: BufferSlice) -> Result<()> {
    guard(|| registry::write(id(capture)?, stream(stream_id)?, &data).map_err(core_error))
}

/// Finishes both spills, marks the capture finished and settles its ring. Idempotent.
#[napi]
pub fn finish(capture: f64) -> Result<()> {
    guard(|| registry::finish(id(capture)?).map_err(core_error))
}

#[napi]
pub fn info(capture: f64, stream_id: u32) -> Result<NativeStreamInfo> {
    guard(|| {
        registry::info(id(capture)?, stream(stream_id)?)
            .map(Into::into)
            .map_err(core_error)
    })
}

/// The retained tail window of a stream.
#[napi]
pub fn tail(capture: f64, stream_id: u32) -> Result<Buffer> {
    guard(|| {
        registry::tail(id(capture)?, stream(stream_id)?)
            .map(Buffer::from)
            .map_err(core_error)
    })
}

/// An observer read of a stream's tail from an absolute offset; changes nothing.
#[napi]
pub fn observe(capture: f64, stream_id: u32, from: f64, max: f64) -> Result<NativeObserveResult> {
    guard(|| {
        let o = registry::observe(
            id(capture)?,
            stream(stream_id)?,
            count("from", from)?,
            size("max", max)?,
        )
        .map_err(core_error)?;
        Ok(NativeObserveResult {
            data: o.data.into(),
            from: num(o.from),
            next: num(o.next),
            lossy: o.lossy,
        })
    })
}

#[napi]
pub fn ring_append(capture: f64, chunk_kind: String, data: BufferSlice, gap: bool) -> Result<()> {
    guard(|| {
        registry::ring_append(id(capture)?, kind(&chunk_kind)?, &data, gap).map_err(core_error)
    })
}

/// A consumer read of at most `max` bytes: moves the cursor.
#[napi]
pub fn ring_read(capture: f64, max: f64) -> Result<NativeRingRead> {
    guard(|| {
        registry::ring_read(id(capture)?, size("max", max)?)
            .map(Into::into)
            .map_err(core_error)
    })
}

/// A consumer read into the caller's buffer (its length bounds the read); returns only metadata, the
/// bytes are `buffer.subarray(0, bytes)`.
#[napi]
pub fn ring_read_into(capture: f64, mut buffer: BufferSlice) -> Result<NativeRingReadInto> {
    guard(|| {
        registry::ring_read_into(id(capture)?, &mut buffer)
            .map(Into::into)
            .map_err(core_error)
    })
}

/// An observer read of the ring from an absolute offset; changes nothing.
#[napi]
pub fn ring_observe(capture: f64, from: f64, max: f64) -> Result<NativeRingRead> {
    guard(|| {
        registry::ring_observe(id(capture)?, count("from", from)?, size("max", max)?)
            .map(Into::into)
            .map_err(core_error)
    })
}

#[napi]
pub fn ring_settle(capture: f64) -> Result<()> {
    guard(|| registry::ring_settle(id(capture)?).map_err(core_error))
}

#[napi]
pub fn ring_state(capture: f64) -> Result<NativeRingState> {
    guard(|| {
        registry::ring_state(id(capture)?)
            .map(Into::into)
            .map_err(core_error)
    })
}

/// Removes a capture and closes its spill files; later uses of the id fail with `unknown capture <id>`.
#[napi]
pub fn free(capture: f64) -> Result<()> {
    guard(|| registry::free(id(capture)?).map_err(core_error))
}

/// Panics on purpose, so tests can check that a panic becomes a JS error and the process goes on.
#[napi]
pub fn panic_for_test() -> Result<()> {
    guard(|| panic!("panicForTest was called"))
}
