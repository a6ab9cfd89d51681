//! `--stdio`: many commands over one byte stream (an SSH channel), each forked and supervised as the fork server's
//! are, their output spliced onto the stream as frames (`shellring_wire::frames`).

pub mod command;
pub mod events;
pub mod look;
pub mod mux;
pub mod outbound;
pub mod policy;
pub mod room;
pub mod splice;
