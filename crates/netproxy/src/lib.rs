//! The host's side of the domain network mode: one proxy that accepts on each session's listener (made inside the
//! session's network namespace and handed over), speaks CONNECT, absolute-form HTTP and SOCKS5, judges host and
//! port by the session's live policy, resolves the name once, checks the address and dials that address.

pub mod address;
pub mod asks;
pub mod http;
pub mod policy;
pub mod proxy;
pub mod socks;
pub mod tunnel;

pub use asks::Answer;
pub use policy::{Policy, Verdict};
pub use proxy::{Asker, Proxy, Refusal};
