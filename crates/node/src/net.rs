//! The binding of the domain network mode's proxy (crates/netproxy): a session's listener taken off its network
//! channel and served, its policy replaced live, its refusals read by number.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use std::collections::HashMap;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::{Arc, OnceLock};

use napi::bindgen_prelude::FnArgs;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use shellring_netproxy::{proxy::blocked_line, Answer, Policy, Proxy};

use crate::guard::{error, guard, Result, INVALID_ARGUMENT};

const NET: &str = "SHELLRING_NET";

#[napi(object)]
pub struct NetPolicy {
    pub allow: Vec<String>,
    pub deny: Vec<String>,
    /// Entry text (or `*` for an unlisted host) → the reason a refusal gives.
    pub reasons: HashMap<String, String>,
    /// Test-only: names answered with these addresses, unchecked.
    pub host_map: HashMap<String, String>,
    /// A host on neither list is put to a person (`net_on_ask`) instead of refused at once.
    pub ask: Option<bool>,
}

#[napi(object)]
pub struct NetRefusal {
    pub seq: f64,
    pub host: String,
    pub port: u32,
    pub reason: String,
    /// `[network: blocked <host>:<port> — <reason>]`, as the refused client read it.
    pub line: String,
}

fn proxy() -> &'static Arc<Proxy> {
    static PROXY: OnceLock<Arc<Proxy>> = OnceLock::new();
    PROXY.get_or_init(|| Arc::new(Proxy::default()))
}

fn policy(p: NetPolicy) -> Result<Policy> {
    Policy::new(&p.allow, &p.deny, p.reasons, &p.host_map)
        .map(|policy| policy.asking(p.ask == Some(true)))
        .map_err(|e| error(INVALID_ARGUMENT, e))
}

/// `(key, host, port)` of a question: a weak reference, so a process with nothing else to do still exits.
type AskCallback = ThreadsafeFunction<
    FnArgs<(String, String, u32)>,
    (),
    FnArgs<(String, String, u32)>,
    Status,
    false,
    true,
>;

/// Where the proxy's questions about unlisted hosts go (once per process; a later call replaces it). Every question
/// is answered with `net_answer`; until this is called, nobody can be asked and unlisted hosts are refused.
#[napi]
pub fn net_on_ask(callback: AskCallback) -> Result<()> {
    guard(|| {
        let callback = Arc::new(callback);
        proxy().set_asker(Arc::new(move |key: &str, host: &str, port: u16| {
            let args = FnArgs::from((key.to_string(), host.to_string(), u32::from(port)));
            callback.call(args, ThreadsafeFunctionCallMode::NonBlocking) == Status::Ok
        }));
        Ok(())
    })
}

/// Answers the session's open question about `host` and `port`: `once`, `session`, `rejected`, `unanswered` or
/// `nobody`. False when no such question is open (answered already, or given up on).
#[napi]
pub fn net_answer(key: String, host: String, port: u32, answer: String) -> Result<bool> {
    guard(|| {
        let answer = Answer::parse(&answer)
            .ok_or_else(|| error(INVALID_ARGUMENT, format!("unknown answer {answer:?}")))?;
        let port = u16::try_from(port).map_err(|_| error(INVALID_ARGUMENT, "port out of range"))?;
        Ok(proxy().answer(&key, &host, port, answer))
    })
}

/// Takes the listener the session sandbox sent on `channel` (its end of the network channel; the caller closes it)
/// and serves it for session `key`, under the policy `net_set_policy` gave (until then every host is refused).
#[napi]
pub fn net_attach(key: String, channel: i32) -> Result<()> {
    guard(|| {
        let listener =
            receive_fd(channel).map_err(|e| error(NET, format!("network channel: {e}")))?;
        proxy().attach(&key, listener).map_err(|e| error(NET, e))
    })
}

/// Sets the session's policy, live: connections judged from now on see it.
#[napi]
pub fn net_set_policy(key: String, policy_in: NetPolicy) -> Result<()> {
    guard(|| {
        proxy().set_policy(&key, policy(policy_in)?);
        Ok(())
    })
}

#[napi]
pub fn net_detach(key: String) -> Result<()> {
    guard(|| {
        proxy().detach(&key);
        Ok(())
    })
}

/// The number of the session's last refusal (0: none).
#[napi]
pub fn net_last_refusal(key: String) -> Result<f64> {
    guard(|| Ok(proxy().last_refusal(&key) as f64))
}

/// The session's refusals numbered after `after`, oldest first.
#[napi]
pub fn net_refusals(key: String, after: f64) -> Result<Vec<NetRefusal>> {
    guard(|| {
        Ok(proxy()
            .refusals_after(&key, after.max(0.0) as u64)
            .into_iter()
            .map(|r| NetRefusal {
                seq: r.seq as f64,
                line: blocked_line(&r.host, r.port, &r.reason),
                host: r.host,
                port: u32::from(r.port),
                reason: r.reason,
            })
            .collect())
    })
}

/// One descriptor received on `socket` (SCM_RIGHTS), without waiting: the sandbox sent it before saying ready.
fn receive_fd(socket: i32) -> std::io::Result<OwnedFd> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // u64 elements keep the control buffer aligned for cmsghdr; room for one descriptor.
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr is valid; every pointer refers to a live local for the duration of recvmsg, and the
    // control message is read only within the length the kernel reports.
    unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = std::mem::size_of_val(&control) as _;
        let got = libc::recvmsg(
            socket,
            &mut message,
            libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
        );
        if got < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let header = libc::CMSG_FIRSTHDR(&message);
        if header.is_null()
            || (*header).cmsg_level != libc::SOL_SOCKET
            || (*header).cmsg_type != libc::SCM_RIGHTS
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "no descriptor was sent",
            ));
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<i32>());
        Ok(OwnedFd::from_raw_fd(fd))
    }
}
