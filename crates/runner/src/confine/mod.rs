//! Confinement: what a command may see and do (Landlock, bubblewrap, namespaces, seccomp, capabilities, limits), and
//! starting it under that confinement (`spawn`). Below a command's life: nothing here knows of status or servers.

pub mod bwrap;
pub mod caps;
pub mod fds;
pub mod host_pid;
pub mod idmap;
pub mod keyring;
pub mod landlock;
pub mod limits;
pub mod mount_attr;
pub mod mount_ns;
pub mod net;
pub mod pid_ns;
pub mod probe;
pub mod seccomp;
pub mod spawn;
pub mod view;
