//! The proxy: sessions by key, each with its listener (accepted on a thread of its own), its live policy and its
//! refusals numbered in order, so the host can give each call the refusals made while it ran.
//!
//! Threads, not an event loop: an idle session costs one thread blocked in accept (a small stack), a connection
//! two, and the code stays the plain blocking sequence each protocol is (head, judge, resolve, dial, copy).

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use crate::address;
use crate::asks::Asks;
use crate::http::{self, Request};
use crate::policy::{Policy, Verdict};
use crate::socks;
use crate::tunnel;

/// Refusals kept per session for calls to collect (the oldest go first).
const KEPT_REFUSALS: usize = 256;
/// How long a client may take to send its request, and a server to accept the connection.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const DIAL_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest a connection waits for a person: the host's side gives up on its request first (after 10 minutes).
const ASK_BOUND: Duration = Duration::from_secs(11 * 60);

/// Sends a question about a host to the host's side: (session key, host, port); false when it could not be sent.
pub type Asker = dyn Fn(&str, &str, u16) -> bool + Send + Sync;

/// One refused connection: its number in the session, what was asked and why it was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub seq: u64,
    pub host: String,
    pub port: u16,
    pub reason: String,
}

#[derive(Default)]
struct Session {
    key: String,
    policy: RwLock<Arc<Policy>>,
    asks: Asks,
    refusals: Mutex<(u64, VecDeque<Refusal>)>,
    /// The listener being accepted on, once the session's sandbox handed one over.
    listener: Mutex<Option<Arc<OwnedFd>>>,
}

impl Session {
    fn refuse(&self, host: &str, port: u16, reason: &str) {
        let mut guard = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
        let (next, list) = &mut *guard;
        *next += 1;
        if list.len() == KEPT_REFUSALS {
            list.pop_front();
        }
        list.push_back(Refusal {
            seq: *next,
            host: host.to_string(),
            port,
            reason: reason.to_string(),
        });
    }
}

/// The text a refused client reads, and the call's result line: one format.
pub fn blocked_line(host: &str, port: u16, reason: &str) -> String {
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    format!("[network: blocked {host}:{port} — {reason}]")
}

#[derive(Default)]
pub struct Proxy {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    own: std::sync::OnceLock<Vec<IpAddr>>,
    asker: RwLock<Option<Arc<Asker>>>,
}

impl Proxy {
    /// Serves `listener` (a listening TCP socket) for session `key`, replacing the session's earlier listener if
    /// any. Until `set_policy` says otherwise, every host is refused.
    ///
    /// # Errors
    /// When the accepting thread cannot start.
    pub fn attach(self: &Arc<Self>, key: &str, listener: OwnedFd) -> std::io::Result<()> {
        self.own.get_or_init(address::own_addresses);
        let session = self.session(key);
        let listener = Arc::new(listener);
        let previous = session
            .listener
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .replace(listener.clone());
        if let Some(previous) = previous {
            stop(&previous);
        }
        let proxy = self.clone();
        std::thread::Builder::new()
            .name("netproxy-accept".into())
            .stack_size(64 * 1024)
            .spawn(move || proxy.accept_loop(&session, &listener))?;
        Ok(())
    }

    /// Sets the session's policy (before or after its listener comes); connections judged from now on see it.
    pub fn set_policy(&self, key: &str, policy: Policy) {
        let session = self.session(key);
        *session.policy.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(policy);
    }

    /// Where questions about unlisted hosts go, for sessions whose policy asks (until set, nobody can be asked).
    pub fn set_asker(&self, asker: Arc<Asker>) {
        *self.asker.write().unwrap_or_else(|e| e.into_inner()) = Some(asker);
    }

    /// Answers the session's open question about `host` and `port`; false when none is open.
    pub fn answer(&self, key: &str, host: &str, port: u16, answer: crate::asks::Answer) -> bool {
        let session = self.lock().get(key).cloned();
        session.is_some_and(|s| s.asks.answer(&crate::policy::normal(host), port, answer))
    }

    /// Forgets the session and stops accepting for it (connections already made run to their end; those waiting
    /// for a person are refused).
    pub fn detach(&self, key: &str) {
        if let Some(session) = self.lock().remove(key) {
            session.asks.end();
            if let Some(listener) = session
                .listener
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
            {
                stop(&listener);
            }
        }
    }

    fn session(&self, key: &str) -> Arc<Session> {
        self.lock()
            .entry(key.to_string())
            .or_insert_with(|| {
                Arc::new(Session {
                    key: key.to_string(),
                    ..Session::default()
                })
            })
            .clone()
    }

    /// The session's last refusal number (0: none yet).
    pub fn last_refusal(&self, key: &str) -> u64 {
        self.lock().get(key).map_or(0, |s| {
            s.refusals.lock().unwrap_or_else(|e| e.into_inner()).0
        })
    }

    /// The session's refusals numbered after `after`, oldest first.
    pub fn refusals_after(&self, key: &str, after: u64) -> Vec<Refusal> {
        let Some(session) = self.lock().get(key).cloned() else {
            return Vec::new();
        };
        let guard = session.refusals.lock().unwrap_or_else(|e| e.into_inner());
        guard.1.iter().filter(|r| r.seq > after).cloned().collect()
    }

    /// How many sessions are served.
    pub fn sessions(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn accept_loop(self: &Arc<Self>, session: &Arc<Session>, listener: &OwnedFd) {
        loop {
            // SAFETY: accept4 on the listener this thread keeps open; no address is asked for.
            let fd = unsafe {
                libc::accept4(
                    listener.as_raw_fd(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    libc::SOCK_CLOEXEC,
                )
            };
            if fd < 0 {
                match std::io::Error::last_os_error().raw_os_error() {
                    Some(
                        libc::EINTR
                        | libc::ECONNABORTED
                        | libc::EMFILE
                        | libc::ENFILE
                        | libc::ENOBUFS
                        | libc::ENOMEM,
                    ) => {
                        std::thread::sleep(Duration::from_millis(5));
                        continue;
                    }
                    // Shut down (detached), or the listener is gone.
                    _ => return,
                }
            }
            // SAFETY: accept4 returned a new descriptor owned by nothing else.
            let client = TcpStream::from(unsafe { OwnedFd::from_raw_fd(fd) });
            let proxy = self.clone();
            let session = session.clone();
            let spawned = std::thread::Builder::new()
                .name("netproxy-conn".into())
                .stack_size(128 * 1024)
                .spawn(move || proxy.serve(&session, client));
            if spawned.is_err() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    fn serve(&self, session: &Session, mut client: TcpStream) {
        let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
        let mut first = [0u8; 1];
        if client.read_exact(&mut first).is_err() {
            return;
        }
        if first[0] == 5 {
            return self.serve_socks(session, client);
        }
        let (head, rest) = match http::read_head(&mut client, first.to_vec()) {
            Ok(parts) => parts,
            Err(e) => {
                let _ = client.write_all(&http::answer("400 Bad Request", &e.to_string()));
                return;
            }
        };
        let request = match http::parse(&head) {
            Ok(request) => request,
            Err(why) => {
                let _ = client.write_all(&http::answer("400 Bad Request", why));
                return;
            }
        };
        let (host, port) = match &request {
            Request::Connect { host, port } | Request::Forward { host, port, .. } => {
                (host.clone(), *port)
            }
        };
        let mut server = match self.dial(session, &host, port) {
            Ok(server) => server,
            Err(Dial::Refused(reason)) => {
                let line = blocked_line(&host, port, &reason);
                let _ = client.write_all(&http::answer("403 Forbidden", &line));
                return;
            }
            Err(Dial::Failed(e)) => {
                let _ = client.write_all(&http::answer(
                    "502 Bad Gateway",
                    &format!("{host}:{port}: {e}"),
                ));
                return;
            }
        };
        let sent = match request {
            Request::Connect { .. } => {
                client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            }
            Request::Forward { head, .. } => server.write_all(&head),
        };
        if sent.is_err() || server.write_all(&rest).is_err() {
            return;
        }
        let _ = client.set_read_timeout(None);
        tunnel::both_ways(client, server);
    }

    fn serve_socks(&self, session: &Session, mut client: TcpStream) {
        let Ok((host, port)) = socks::handshake(&mut client) else {
            return;
        };
        let server = match self.dial(session, &host, port) {
            Ok(server) => server,
            Err(Dial::Refused(_)) => {
                let _ = socks::reply(&mut client, socks::NOT_ALLOWED);
                return;
            }
            Err(Dial::Failed(e)) => {
                let code = if e.kind() == std::io::ErrorKind::ConnectionRefused {
                    socks::REFUSED
                } else {
                    socks::UNREACHABLE
                };
                let _ = socks::reply(&mut client, code);
                return;
            }
        };
        if socks::reply(&mut client, 0).is_err() {
            return;
        }
        let _ = client.set_read_timeout(None);
        tunnel::both_ways(client, server);
    }

    /// Judges host and port, resolves once, checks the address and dials the address it checked. A refusal is
    /// recorded in the session.
    fn dial(&self, session: &Session, host: &str, port: u16) -> Result<TcpStream, Dial> {
        let policy = session
            .policy
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let address = self
            .checked_address(session, &policy, host, port)
            .inspect_err(|reason| {
                session.refuse(&crate::policy::normal(host), port, reason);
            });
        let address = address.map_err(Dial::Refused)?;
        TcpStream::connect_timeout(&address, DIAL_TIMEOUT).map_err(Dial::Failed)
    }

    fn checked_address(
        &self,
        session: &Session,
        policy: &Policy,
        host: &str,
        port: u16,
    ) -> Result<SocketAddr, String> {
        let literal_allowed = match policy.judge(host, port) {
            Verdict::Denied(reason) => return Err(reason),
            Verdict::Unlisted => self.ask(session, policy, host, port).map(|()| false)?,
            Verdict::Allowed { literal } => literal,
        };
        if let Some(ip) = policy.mapped(host) {
            return Ok(SocketAddr::new(ip, port));
        }
        let name = crate::policy::normal(host);
        let literal = name.parse::<IpAddr>().ok();
        let candidates: Vec<SocketAddr> = match literal {
            Some(ip) => vec![SocketAddr::new(ip, port)],
            None => (name.as_str(), port)
                .to_socket_addrs()
                .map_err(|e| format!("could not resolve {name}: {e}"))?
                .collect(),
        };
        if literal_allowed {
            return candidates
                .first()
                .copied()
                .ok_or_else(|| "no address".to_string());
        }
        let own = self.own.get().map_or(&[][..], Vec::as_slice);
        let mut why = "no address";
        for candidate in candidates {
            match address::forbidden(candidate.ip(), own) {
                None => return Ok(candidate),
                Some(kind) => why = kind,
            }
        }
        Err(match literal {
            Some(_) => why.to_string(),
            None => format!("resolves to {why}"),
        })
    }
}

impl Proxy {
    /// An unlisted host goes through when a person allowed it for the session, or, where the policy asks, allows it
    /// now; its addresses are checked as for any allowed name.
    fn ask(&self, session: &Session, policy: &Policy, host: &str, port: u16) -> Result<(), String> {
        let name = crate::policy::normal(host);
        if session.asks.allowed(&name, port) {
            return Ok(());
        }
        let unlisted = policy.unlisted_reason();
        let asker = self.asker.read().unwrap_or_else(|e| e.into_inner()).clone();
        let Some(asker) = asker.filter(|_| policy.asks()) else {
            return Err(unlisted);
        };
        let answer = session
            .asks
            .wait(&name, port, || asker(&session.key, &name, port), ASK_BOUND);
        answer.refusal(&unlisted).map_or(Ok(()), Err)
    }
}

enum Dial {
    Refused(String),
    Failed(std::io::Error),
}

/// Ends the accepting thread: shutting a listener down wakes a blocked accept with an error.
fn stop(listener: &OwnedFd) {
    // SAFETY: shutdown on a listener that stays open until its last holder drops it.
    unsafe { libc::shutdown(listener.as_raw_fd(), libc::SHUT_RDWR) };
}
