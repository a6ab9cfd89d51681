//! Read results as numbers in a caller's `Float64Array`: JS builds the result objects from them far faster
//! than N-API can, which creates each object property by property and interns every name on each call.
//!
//! A read table (ringRead, ringObserve, ringReadInto) is a header of [`READ_HEADER`] numbers, `bytes`,
//! `from`, `to`, `lossy` (0 or 1), `total`, `earliest`, `settled` (0 or 1) and the segment count, then
//! one `kind` (0 stdout, 1 stderr, 2 log), `gap` (0 or 1), `length` triple per segment. A table too short
//! for the segments gets only the count, and the call reads nothing, so the caller can retry with a
//! longer one. src/native/binding.ts documents the same layout for the JS side.

use shellring_core::{ChunkKind, ObservedView, RingState, RingView};

use crate::guard::{error, num, Result, INVALID_ARGUMENT};

pub const READ_HEADER: usize = 8;
const SEGMENT: usize = 3;
const COUNT: usize = 7;
/// `from`, `next`, `lossy`.
pub const OBSERVE_LEN: usize = 3;
/// `total`, `earliest`, `consumer`, `settled`, `terminalRead`, `retained`.
pub const STATE_LEN: usize = 6;

fn flag(value: bool) -> f64 {
    if value {
        1.0
    } else {
        0.0
    }
}

fn kind_code(kind: ChunkKind) -> f64 {
    match kind {
        ChunkKind::Stdout => 0.0,
        ChunkKind::Stderr => 1.0,
        ChunkKind::Log => 2.0,
    }
}

/// Checks that `table` can hold at least `len` numbers.
pub fn check(table: &[f64], len: usize) -> Result<()> {
    if table.len() < len {
        return Err(error(
            INVALID_ARGUMENT,
            format!(
                "invalid table: expected a Float64Array of at least {len} numbers, got {}",
                table.len()
            ),
        ));
    }
    Ok(())
}

/// Writes the whole read when the table has room for its segments and returns true; otherwise writes
/// only the segment count and returns false.
pub fn write_read(table: &mut [f64], view: &RingView<'_>) -> bool {
    let count = view.segment_count();
    table[COUNT] = count as f64;
    if (table.len() - READ_HEADER) / SEGMENT < count {
        return false;
    }
    let meta = view.meta();
    table[0] = view.len() as f64;
    table[1] = num(meta.from);
    table[2] = num(meta.to);
    table[3] = flag(meta.lossy);
    table[4] = num(meta.total);
    table[5] = num(meta.earliest);
    table[6] = flag(meta.settled);
    for (slot, segment) in table[READ_HEADER..]
        .chunks_exact_mut(SEGMENT)
        .zip(view.segments())
    {
        slot[0] = kind_code(segment.kind);
        slot[1] = flag(segment.gap);
        slot[2] = segment.data.len() as f64;
    }
    true
}

pub fn write_observe(table: &mut [f64], view: &ObservedView<'_>) {
    table[0] = num(view.from);
    table[1] = num(view.next);
    table[2] = flag(view.lossy);
}

pub fn write_state(table: &mut [f64], state: &RingState) {
    table[0] = num(state.total);
    table[1] = num(state.earliest);
    table[2] = num(state.consumer);
    table[3] = flag(state.settled);
    table[4] = flag(state.terminal_read);
    table[5] = num(state.retained);
}
