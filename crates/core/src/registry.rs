//! The process-global registry of captures keyed by numeric id.
//!
//! The map lock is held only to find a capture, and a capture's memory lock only for one copy, so a
//! reactor thread can write into one capture while the main thread reads another (or the same one, between
//! writes). Sizes, spill states and ring state are read without any capture lock (see `shared`).
//!
//! The `*_with` functions hand a view of a capture's own bytes to a closure that runs with the capture's
//! lock held, so a binding copies straight into memory it owns; the closure must not call back into the
//! registry (the lock is not reentrant).

use std::collections::HashMap;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use crate::capture::{Memory, Stream, StreamInfo};
use crate::error::Error;
use crate::options::CaptureOptions;
use crate::reactor;
use crate::ring::{ChunkKind, Ring, RingRead, RingReadInto, RingState};
use crate::ring_view::RingView;
use crate::shared::SharedCapture;
use crate::tail::{Observed, ObservedView};

type Map = HashMap<u64, Arc<SharedCapture>>;

/// Ids start at 1 and are never reused, so a stale id can only miss, never reach another capture.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn map() -> &'static RwLock<Map> {
    static MAP: OnceLock<RwLock<Map>> = OnceLock::new();
    MAP.get_or_init(|| RwLock::new(HashMap::new()))
}

fn get(id: u64) -> Result<Arc<SharedCapture>, Error> {
    let captures = map().read().unwrap_or_else(PoisonError::into_inner);
    captures.get(&id).cloned().ok_or(Error::UnknownCapture(id))
}

fn with<T>(id: u64, f: impl FnOnce(&mut Memory) -> T) -> Result<T, Error> {
    Ok(get(id)?.with_memory(f))
}

fn reading<T>(id: u64, f: impl FnOnce(&Memory) -> T) -> Result<T, Error> {
    Ok(get(id)?.read_memory(f))
}

fn with_ring<T>(id: u64, f: impl FnOnce(&mut Ring) -> T) -> Result<T, Error> {
    with(id, |c| c.ring_mut().map(f))?.ok_or(Error::NoRing(id))
}

fn reading_ring<T>(id: u64, f: impl FnOnce(&Ring) -> T) -> Result<T, Error> {
    reading(id, |c| c.ring().map(f))?.ok_or(Error::NoRing(id))
}

/// Creates a capture and returns its id.
///
/// # Errors
///
/// [`Error::InvalidOptions`] when the options fail [`CaptureOptions::validate`].
pub fn create(options: CaptureOptions) -> Result<u64, Error> {
    options.validate()?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let capture = Arc::new(SharedCapture::new(id, &options));
    map()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, capture);
    Ok(id)
}

/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn write(id: u64, stream: Stream, data: &[u8]) -> Result<(), Error> {
    get(id)?.write(stream, data);
    Ok(())
}

/// Finishes the capture; its pipe readers stop and anything they read later is dropped.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn finish(id: u64) -> Result<(), Error> {
    let capture = get(id)?;
    capture.finish();
    stop_readers(id, &capture);
    Ok(())
}

/// Hands the read end of a pipe (non-blocking) to the reactor, which drains it into the capture's `stream`.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::Io`] when the reactor cannot start;
/// `fd` is closed in both cases.
pub fn attach_reader(id: u64, stream: Stream, fd: RawFd) -> Result<(), Error> {
    // SAFETY: the caller hands fd over; from here on it is owned (and closed) exactly once.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    reactor::attach(id, get(id)?, stream, fd)
}

/// Ends the capture once its pipes reach end-of-file, or after `within`, reading every byte they hold then;
/// `done` runs (on a reactor thread) once the capture is finished.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::Io`] when the reactor cannot start.
pub fn drain(id: u64, within: Duration, done: reactor::Done) -> Result<(), Error> {
    reactor::drain(id, get(id)?, within, done)
}

/// True when every pipe attached to the capture has reached end-of-file (or none was attached, or the
/// capture is gone).
pub fn readers_done(id: u64) -> bool {
    get(id).map_or(true, |c| c.readers_done())
}

/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn info(id: u64, stream: Stream) -> Result<StreamInfo, Error> {
    Ok(get(id)?.info(stream))
}

/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn tail(id: u64, stream: Stream) -> Result<Vec<u8>, Error> {
    reading(id, |c| c.tail(stream).window())
}

/// The retained tail window as at most two slices in stream order, handed to `f`.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn tail_with<T>(
    id: u64,
    stream: Stream,
    f: impl FnOnce(&[u8], &[u8]) -> T,
) -> Result<T, Error> {
    reading(id, |c| {
        let (a, b) = c.tail(stream).window_slices();
        f(a, b)
    })
}

/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn observe(id: u64, stream: Stream, from: u64, max: usize) -> Result<Observed, Error> {
    reading(id, |c| c.observe_view(stream, from, max).to_observed())
}

/// [`observe`] handed to `f` as a view of the tail's own buffer.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn observe_with<T>(
    id: u64,
    stream: Stream,
    from: u64,
    max: usize,
    f: impl FnOnce(&ObservedView<'_>) -> T,
) -> Result<T, Error> {
    reading(id, |c| f(&c.observe_view(stream, from, max)))
}

/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::NoRing`] for a capture without a ring.
pub fn ring_append(id: u64, kind: ChunkKind, data: &[u8], gap: bool) -> Result<(), Error> {
    with_ring(id, |r| r.append(kind, data, gap))
}

/// A consumer read of at most `max` bytes.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::NoRing`] for a capture without a ring.
pub fn ring_read(id: u64, max: usize) -> Result<RingRead, Error> {
    with_ring(id, |r| r.read(max))
}

/// A consumer read of at most `max` bytes handed to `f` as a view (see [`Ring::read_with`]): the cursor
/// moves only when `f` returns `Ok`.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::NoRing`] for a capture without a ring;
/// the inner result is `f`'s.
pub fn ring_read_with<T, E>(
    id: u64,
    max: usize,
    f: impl FnOnce(&RingView<'_>) -> Result<T, E>,
) -> Result<Result<T, E>, Error> {
    with_ring(id, |r| r.read_with(max, f))
}

/// A consumer read that never passes `max` handed to `f` as a view (see [`Ring::read_fitting_with`]).
///
/// # Errors
///
/// [`Error::UnknownCapture`], [`Error::NoRing`], or [`Error::BufferTooSmall`] when `max` bytes cannot hold
/// the next character; the inner result is `f`'s.
pub fn ring_read_fitting_with<T, E>(
    id: u64,
    max: usize,
    f: impl FnOnce(&RingView<'_>) -> Result<T, E>,
) -> Result<Result<T, E>, Error> {
    with_ring(id, |r| r.read_fitting_with(max, f))?
}

/// A consumer read into `buf`.
///
/// # Errors
///
/// [`Error::UnknownCapture`], [`Error::NoRing`], or [`Error::BufferTooSmall`] when `buf` cannot hold the
/// next character.
pub fn ring_read_into(id: u64, buf: &mut [u8]) -> Result<RingReadInto, Error> {
    with_ring(id, |r| r.read_into(buf))?
}

/// An observer read from `from`; changes nothing.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::NoRing`] for a capture without a ring.
pub fn ring_observe(id: u64, from: u64, max: usize) -> Result<RingRead, Error> {
    reading_ring(id, |r| r.observe(from, max))
}

/// An observer read from `from` handed to `f` as a view of the ring's own bytes.
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::NoRing`] for a capture without a ring.
pub fn ring_observe_with<T>(
    id: u64,
    from: u64,
    max: usize,
    f: impl FnOnce(&RingView<'_>) -> T,
) -> Result<T, Error> {
    reading_ring(id, |r| f(&r.observe_view(from, max)))
}

/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::NoRing`] for a capture without a ring.
pub fn ring_settle(id: u64) -> Result<(), Error> {
    with_ring(id, Ring::settle)
}

/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist, [`Error::NoRing`] for a capture without a ring.
/// Read without waiting for any lock (but the memory lock, for a copy, while memory is behind the spill files):
/// a poll of a job's progress never waits for its reader.
pub fn ring_state(id: u64) -> Result<RingState, Error> {
    get(id)?.ring_state().ok_or(Error::NoRing(id))
}

/// Removes a capture and closes its spill files (a spill already written stays on disk, complete).
///
/// # Errors
///
/// [`Error::UnknownCapture`] for an id that does not exist.
pub fn free(id: u64) -> Result<(), Error> {
    let capture = map()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id)
        .ok_or(Error::UnknownCapture(id))?;
    capture.finish();
    stop_readers(id, &capture);
    Ok(())
}

/// Closes the capture's pipes in the reactor, which is woken only when some are still attached: a finished command's
/// capture usually has none left, and waking another thread costs the caller more than the rest of its work.
fn stop_readers(id: u64, capture: &SharedCapture) {
    if !capture.readers_done() {
        reactor::stop(id);
    }
}

/// How many captures are live; for leak checks.
pub fn len() -> usize {
    map().read().unwrap_or_else(PoisonError::into_inner).len()
}
