// The crate's documentation is its README.
#![doc = include_str!("../README.md")]

mod allocator;
mod channel_relay;
mod fast;
// The fork server it serves runs on Linux only; macOS has no SOCK_CLOEXEC or MSG_NOSIGNAL to build it with.
#[cfg(target_os = "linux")]
mod fd_passing;
mod guard;
mod host_env;
mod host_process;
mod js_buffer;
mod js_text;
mod net;
mod pipes;
mod proc_files;
mod read_paths;
// Public: its exports are reached through napi registration only, which a test build does not see.
pub mod policy;
mod shapes;
mod spill_roots;
mod tables;
mod terminal_size;

use napi::bindgen_prelude::Float64ArraySlice;
use napi::Env;
use napi_derive::napi;
use shellring_core::registry;

use guard::{core_error, count, guard, id, num, size, stream, Result};
use js_buffer::{filled, JsValue};
use shapes::{NativeCaptureOptions, NativeStreamInfo};
use tables::{OBSERVE_LEN, READ_HEADER, STATE_LEN};

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

/// The retained tail window of a stream, copied straight from the tail into a new Buffer.
#[napi]
pub fn tail(env: Env, capture: f64, stream_id: u32) -> Result<JsValue> {
    guard(|| {
        registry::tail_with(id(capture)?, stream(stream_id)?, |a, b| {
            filled(&env, a.len() + b.len(), |out| {
                out.push(a);
                out.push(b);
            })
        })
        .map_err(core_error)?
    })
}

/// The retained tail window of a stream as a string, decoded as `Buffer.prototype.toString('utf8')` would (see
/// `js_text` for where its characters live).
#[napi]
pub fn tail_text(env: Env, capture: f64, stream_id: u32) -> Result<JsValue> {
    guard(|| {
        let bytes = registry::tail_with(id(capture)?, stream(stream_id)?, |a, b| [a, b].concat())
            .map_err(core_error)?;
        js_text::string(&env, bytes)
    })
}

/// An observer read of a stream's tail from an absolute offset; changes nothing. Returns the bytes and
/// writes `from`, `next` and `lossy` (0 or 1) to `table`.
#[napi]
pub fn observe(
    env: Env,
    capture: f64,
    stream_id: u32,
    from: f64,
    max: f64,
    mut table: Float64ArraySlice,
) -> Result<JsValue> {
    let table = table_of(&mut table);
    guard(|| {
        let (id, stream) = (id(capture)?, stream(stream_id)?);
        let (from, max) = (count("from", from)?, size("max", max)?);
        tables::check(table, OBSERVE_LEN)?;
        registry::observe_with(id, stream, from, max, |view| {
            tables::write_observe(table, view);
            let [p, q] = view.parts;
            filled(&env, view.len(), |out| {
                out.push(p);
                out.push(q);
            })
        })
        .map_err(core_error)?
    })
}

/// The numbers of a caller's table.
fn table_of<'a>(table: &'a mut Float64ArraySlice<'_>) -> &'a mut [f64] {
    // SAFETY: the call is synchronous and no JS runs during it, so nothing else touches the array while
    // the slice lives; native.ts passes tables that share no memory with the call's other arguments.
    unsafe { table.as_mut() }
}

/// Why a read's closure gave up: the read stays unread.
enum Declined {
    TableTooShort,
    Failed(napi::Error<&'static str>),
}

impl From<napi::Error<&'static str>> for Declined {
    fn from(e: napi::Error<&'static str>) -> Self {
        Declined::Failed(e)
    }
}

/// Turns a read's outcome into the binding's: `None` (JS `null`) when the table was too short.
fn settled_read(read: std::result::Result<JsValue, Declined>) -> Result<Option<JsValue>> {
    match read {
        Ok(value) => Ok(Some(value)),
        Err(Declined::TableTooShort) => Ok(None),
        Err(Declined::Failed(e)) => Err(e),
    }
}

/// Copies a planned read into one new Buffer; its segments are consecutive runs of it (see `tables`).
fn read_buffer(
    env: &Env,
    table: &mut [f64],
    view: &shellring_core::RingView<'_>,
) -> std::result::Result<JsValue, Declined> {
    if !tables::write_read(table, view) {
        return Err(Declined::TableTooShort);
    }
    Ok(filled(env, view.len(), |out| {
        for segment in view.segments() {
            out.push(segment.data);
        }
    })?)
}

/// A consumer read of at most `max` bytes: moves the cursor. Returns the bytes as one Buffer and fills
/// the read table (src/native/binding.ts); `null`, with nothing read, when the table is too short for
/// the segments.
#[napi]
pub fn ring_read(
    env: Env,
    capture: f64,
    max: f64,
    mut table: Float64ArraySlice,
) -> Result<Option<JsValue>> {
    let table = table_of(&mut table);
    guard(|| {
        let (id, max) = (id(capture)?, size("max", max)?);
        tables::check(table, READ_HEADER)?;
        let read = registry::ring_read_with(id, max, |view| read_buffer(&env, table, view))
            .map_err(core_error)?;
        settled_read(read)
    })
}

/// An observer read of the ring from an absolute offset; changes nothing. Returns like [`ring_read`].
#[napi]
pub fn ring_observe(
    env: Env,
    capture: f64,
    from: f64,
    max: f64,
    mut table: Float64ArraySlice,
) -> Result<Option<JsValue>> {
    let table = table_of(&mut table);
    guard(|| {
        let (id, from, max) = (id(capture)?, count("from", from)?, size("max", max)?);
        tables::check(table, READ_HEADER)?;
        let read =
            registry::ring_observe_with(id, from, max, |view| read_buffer(&env, table, view))
                .map_err(core_error)?;
        settled_read(read)
    })
}

#[napi]
pub fn ring_settle(capture: f64) -> Result<()> {
    guard(|| registry::ring_settle(id(capture)?).map_err(core_error))
}

/// Writes `total`, `earliest`, `consumer`, `settled`, `terminalRead` and `retained` to `table`.
#[napi]
pub fn ring_state(capture: f64, mut table: Float64ArraySlice) -> Result<()> {
    let table = table_of(&mut table);
    guard(|| {
        let id = id(capture)?;
        tables::check(table, STATE_LEN)?;
        let state = registry::ring_state(id).map_err(core_error)?;
        tables::write_state(table, &state);
        Ok(())
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
