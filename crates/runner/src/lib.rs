// The crate's documentation is its README, whose example runs as a doctest.
#![doc = include_str!("../README.md")]

pub mod caps;
pub mod fds;
pub mod host_pid;
pub mod keyring;
pub mod landlock;
pub mod limits;
pub mod mount_ns;
pub mod pid_ns;
pub mod plan;
pub mod probe;
pub mod proc_tree;
pub mod request;
pub mod seccomp;
pub mod serve;
pub mod session;
pub mod signals;
pub mod spawn;
pub mod status;
pub mod stdio;
pub mod stdio_frame;
pub mod supervise;
pub mod title;
pub mod view;
