// The crate's documentation is its README, whose example runs as a doctest.
#![doc = include_str!("../README.md")]

pub mod cli;
pub mod confine;
pub mod failure;
pub mod life;
pub mod serve;
pub mod stdio;

/// The formats shared with the host: a command's plan and request, status lines, frames.
pub use shellring_wire as wire;
