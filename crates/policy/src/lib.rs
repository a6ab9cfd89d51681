// The crate's documentation is its README, whose example runs as a doctest.
#![doc = include_str!("../README.md")]

mod literal;
mod walk;

pub use walk::{simple_commands, ParsedScript, SimpleCommand};
