//! Serving and spawning: the fork server that forks a runner per command (`server`), the sessions' spawners born in
//! their cgroups (`spawners`), and the session sandbox a server runs inside (`session`).

pub mod server;
pub mod session;
pub mod spawners;
