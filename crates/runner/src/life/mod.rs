//! A command's life under its runner: the request read and applied (`command`), bash started and supervised to its
//! end (`supervise`), the status channel it reports on, the tree it ends (`proc_tree`), and a terminal job's
//! pseudo-terminal and screen (`term`).

pub mod alarm;
pub mod command;
pub mod course;
pub mod proc_tree;
pub mod sched;
pub mod signals;
pub mod status;
pub mod supervise;
pub mod term;
pub mod title;
