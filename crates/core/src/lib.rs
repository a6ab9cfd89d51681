// The crate's documentation is its README: the definition these modules implement, with an example that runs
// as a doctest.
#![doc = include_str!("../README.md")]

pub mod behind;
pub mod capture;
pub mod error;
#[cfg(target_os = "linux")]
pub mod holding;
pub mod line_start;
pub mod options;
pub mod pipe;
#[cfg(target_os = "linux")]
pub mod pipe_moves;
pub mod reactor;
pub mod registry;
#[cfg(target_os = "linux")]
pub mod relay;
pub mod ring;
pub mod ring_chunk;
pub mod ring_view;
pub mod shared;
pub mod spill;
pub mod spill_root;
pub mod stats;
pub mod tail;
#[cfg(test)]
mod testing;
pub mod utf8;

pub use capture::{Capture, Memory, Stream, StreamInfo};
pub use error::Error;
pub use options::CaptureOptions;
pub use ring::{
    ChunkKind, ReadMeta, Ring, RingOptions, RingRead, RingReadInto, RingState, Segment, SegmentLen,
};
pub use ring_view::{RingView, SegmentRef};
pub use shared::SharedCapture;
pub use spill::{Spill, SpillState};
pub use tail::{Observed, ObservedView, Tail};
