// The crate's documentation is its README, whose example runs as a doctest.
#![doc = include_str!("../README.md")]

mod fast;
mod json;
mod literal;
mod redirect;
mod script;
mod walk;

pub use fast::fast_commands;
pub use script::{Assignment, ParsedScript, SimpleCommand, Stdin};
pub use walk::tree_sitter_commands;

/// Lists every simple command `script` can run (see the crate's documentation): through the fast path where it
/// understands the whole script, else through tree-sitter.
pub fn simple_commands(script: &str) -> ParsedScript {
    fast_commands(script).unwrap_or_else(|| tree_sitter_commands(script))
}
