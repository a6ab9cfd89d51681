// The crate's documentation is its README.
#![doc = include_str!("../README.md")]

pub mod control;
pub mod fields;
pub mod frames;
pub mod json;
pub mod look;
pub mod plan;
pub mod request;
pub mod route;
pub mod spec;
pub mod stage;
pub mod status;
pub mod term;
