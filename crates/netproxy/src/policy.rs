//! A session's network policy: allow and deny entries (`host`, `*.suffix`, an IP literal, each with an optional
//! `:port`), deny winning, the reason text of each entry, and the test-only host map.

use std::collections::HashMap;
use std::net::IpAddr;

/// The reason given when a host is neither allowed nor denied.
pub const NOT_ALLOWED: &str = "not in the allowed hosts";
/// The reason given when a deny entry without its own reason matches.
pub const DENIED: &str = "denied by the network policy";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    /// Every host.
    Any,
    Exact(String),
    /// `*.example.com`: every name below example.com (not example.com itself).
    Below(String),
    Literal(IpAddr),
}

#[derive(Debug, Clone)]
struct Entry {
    text: String,
    host: Host,
    port: Option<u16>,
}

/// What the policy says of a host and port, before any resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Allowed; `literal` when the entry names this IP literal (then a private address is accepted).
    Allowed {
        literal: bool,
    },
    Denied(String),
    /// Neither allowed nor denied.
    Unlisted,
}

#[derive(Debug, Clone, Default)]
pub struct Policy {
    allow: Vec<Entry>,
    deny: Vec<Entry>,
    reasons: HashMap<String, String>,
    /// Whether a host on neither list is put to a person (else it is refused at once).
    ask: bool,
    /// Test-only: names answered with these addresses, which are then not checked.
    host_map: HashMap<String, IpAddr>,
}

impl Policy {
    /// # Errors
    /// The first entry that is not a host pattern, or a host map address that is not an IP address.
    pub fn new(
        allow: &[String],
        deny: &[String],
        reasons: HashMap<String, String>,
        host_map: &HashMap<String, String>,
    ) -> Result<Policy, String> {
        let parse = |list: &[String]| list.iter().map(|t| entry(t)).collect::<Result<Vec<_>, _>>();
        let mut map = HashMap::new();
        for (name, ip) in host_map {
            let ip = ip
                .parse::<IpAddr>()
                .map_err(|_| format!("host map: {ip:?} is not an IP address"))?;
            map.insert(normal(name), ip);
        }
        Ok(Policy {
            allow: parse(allow)?,
            deny: parse(deny)?,
            reasons,
            ask: false,
            host_map: map,
        })
    }

    /// The same policy, putting a host on neither list to a person when `ask`.
    #[must_use]
    pub fn asking(mut self, ask: bool) -> Policy {
        self.ask = ask;
        self
    }

    /// Whether a host on neither list is put to a person.
    pub fn asks(&self) -> bool {
        self.ask
    }

    /// Judges `host` (a name or an IP literal) and `port`.
    pub fn judge(&self, host: &str, port: u16) -> Verdict {
        let host = normal(host);
        let literal = host.parse::<IpAddr>().ok();
        let matching =
            |e: &&Entry| e.port.is_none_or(|p| p == port) && matches(&e.host, &host, literal);
        if let Some(entry) = self.deny.iter().find(matching) {
            let reason = self.reasons.get(&entry.text).map_or(DENIED, String::as_str);
            return Verdict::Denied(reason.to_string());
        }
        match self.allow.iter().find(matching) {
            Some(entry) => Verdict::Allowed {
                literal: matches!(entry.host, Host::Literal(_)),
            },
            None => Verdict::Unlisted,
        }
    }

    /// The reason for an unlisted host: the text given for `*` in `reasons`, else the default.
    pub fn unlisted_reason(&self) -> String {
        self.reasons
            .get("*")
            .map_or(NOT_ALLOWED, String::as_str)
            .to_string()
    }

    /// The test-only address of `host`, if the host map names it.
    pub fn mapped(&self, host: &str) -> Option<IpAddr> {
        self.host_map.get(&normal(host)).copied()
    }
}

fn matches(pattern: &Host, host: &str, literal: Option<IpAddr>) -> bool {
    match pattern {
        Host::Any => true,
        Host::Exact(name) => name == host,
        Host::Below(suffix) => {
            host.len() > suffix.len() + 1
                && host.ends_with(suffix)
                && host[..host.len() - suffix.len()].ends_with('.')
        }
        Host::Literal(ip) => literal == Some(*ip),
    }
}

/// Lower case, no trailing dot, no brackets around an IPv6 literal.
pub fn normal(host: &str) -> String {
    let host = host.trim_end_matches('.');
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.to_ascii_lowercase()
}

fn entry(text: &str) -> Result<Entry, String> {
    let bad = || {
        format!(
            "network entry {text:?}: expected host, *.suffix or an IP address, optionally :port"
        )
    };
    let (host, port) = split_port(text).ok_or_else(bad)?;
    let host = if host == "*" {
        Host::Any
    } else if let Some(suffix) = host.strip_prefix("*.") {
        if !is_name(suffix) {
            return Err(bad());
        }
        Host::Below(normal(suffix))
    } else if let Ok(ip) = normal(host).parse::<IpAddr>() {
        Host::Literal(ip)
    } else if is_name(host) {
        Host::Exact(normal(host))
    } else {
        return Err(bad());
    };
    Ok(Entry {
        text: text.to_string(),
        host,
        port,
    })
}

/// `host[:port]`, `[v6][:port]` or a bare IPv6 literal.
fn split_port(text: &str) -> Option<(&str, Option<u16>)> {
    let port = |p: &str| p.parse::<u16>().ok().filter(|&p| p > 0);
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        host.parse::<std::net::Ipv6Addr>().ok()?;
        return match after {
            "" => Some((host, None)),
            _ => Some((host, Some(port(after.strip_prefix(':')?)?))),
        };
    }
    match text.matches(':').count() {
        0 => Some((text, None)),
        1 => {
            let (host, p) = text.split_once(':')?;
            Some((host, Some(port(p)?)))
        }
        _ => text.parse::<IpAddr>().ok().map(|_| (text, None)),
    }
}

fn is_name(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 253
        && host.trim_end_matches('.').split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], deny: &[&str]) -> Policy {
        let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let reasons = HashMap::from([(
            "evil.example.com".to_string(),
            "exfiltration risk".to_string(),
        )]);
        Policy::new(&list(allow), &list(deny), reasons, &HashMap::new()).unwrap()
    }

    #[test]
    fn deny_wins_suffixes_exclude_the_apex_and_ports_bind() {
        let p = policy(
            &["*.example.com", "github.com:443", "10.0.0.5"],
            &["evil.example.com", "*.bad.example.com"],
        );
        assert_eq!(
            p.judge("a.example.com", 80),
            Verdict::Allowed { literal: false }
        );
        assert_eq!(
            p.judge("A.Example.COM.", 80),
            Verdict::Allowed { literal: false }
        );
        assert_eq!(p.judge("example.com", 80), Verdict::Unlisted);
        assert_eq!(p.judge("xexample.com", 80), Verdict::Unlisted);
        assert_eq!(
            p.judge("evil.example.com", 443),
            Verdict::Denied("exfiltration risk".into())
        );
        assert_eq!(
            p.judge("x.bad.example.com", 443),
            Verdict::Denied(DENIED.into())
        );
        assert_eq!(
            p.judge("github.com", 443),
            Verdict::Allowed { literal: false }
        );
        assert_eq!(p.judge("github.com", 22), Verdict::Unlisted);
        assert_eq!(
            p.judge("10.0.0.5", 8080),
            Verdict::Allowed { literal: true }
        );
    }

    #[test]
    fn ipv6_literals_with_and_without_ports() {
        let p = policy(&["[::1]:8080", "fd00::1"], &[]);
        assert_eq!(p.judge("[::1]", 8080), Verdict::Allowed { literal: true });
        assert_eq!(p.judge("::1", 8081), Verdict::Unlisted);
        assert_eq!(p.judge("fd00::1", 1), Verdict::Allowed { literal: true });
    }

    #[test]
    fn malformed_entries_are_refused() {
        for bad in [
            "",
            "a b",
            "*.",
            "host:0",
            "host:x",
            "a:1:2",
            "[::1",
            "[nope]:1",
            "*.a:99999",
        ] {
            assert!(
                Policy::new(&[bad.to_string()], &[], HashMap::new(), &HashMap::new()).is_err(),
                "{bad:?}"
            );
        }
    }
}
