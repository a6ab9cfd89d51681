//! The HTTP side of the proxy: a request head read off the client (CONNECT host:port, or an absolute-form request
//! rewritten to origin form for the one server it names), and the refusal a client reads.

use std::io::Read;

/// The longest request head accepted.
pub const MAX_HEAD: usize = 16 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    /// A tunnel to host:port.
    Connect { host: String, port: u16 },
    /// A plain HTTP request to host:port: `head` is what to send there (origin form, no proxy headers).
    Forward {
        host: String,
        port: u16,
        head: Vec<u8>,
    },
}

/// Reads up to the end of the head; returns the head and the bytes read after it.
///
/// # Errors
/// The read's error, or InvalidData for a head too long or a stream ended inside it.
pub fn read_head(stream: &mut impl Read, first: Vec<u8>) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buffer = first;
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            let rest = buffer.split_off(end + 4);
            return Ok((buffer, rest));
        }
        if buffer.len() > MAX_HEAD {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "request head too long",
            ));
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "request head cut short",
            ));
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Parses a request head. A forwarded request asks the server to close after its answer: the connection was judged
/// for this one server, and a client's next request (perhaps for another host) must come on a new connection.
///
/// # Errors
/// What is wrong with it, for a 400 answer.
pub fn parse(head: &[u8]) -> Result<Request, &'static str> {
    let text = std::str::from_utf8(head).map_err(|_| "request head is not text")?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("malformed request line");
    };
    if !version.starts_with("HTTP/1.") {
        return Err("only HTTP/1.x is proxied");
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = authority(target, None).ok_or("CONNECT needs host:port")?;
        return Ok(Request::Connect { host, port });
    }
    let rest = target
        .strip_prefix("http://")
        .or_else(|| {
            target
                .get(..7)
                .filter(|p| p.eq_ignore_ascii_case("http://"))
                .map(|_| &target[7..])
        })
        .ok_or("expected an absolute http:// URL or CONNECT (use CONNECT for https)")?;
    let (authority_text, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_string()
    };
    if authority_text.contains('@') {
        return Err("credentials in the URL are not proxied");
    }
    let (host, port) = authority(authority_text, Some(80)).ok_or("bad host in the URL")?;
    let mut out = format!("{method} {path} {version}\r\n");
    for header in lines.filter(|l| !l.is_empty()) {
        let name = header.split(':').next().unwrap_or_default().trim();
        if [
            "proxy-connection",
            "proxy-authorization",
            "connection",
            "keep-alive",
        ]
        .iter()
        .any(|h| name.eq_ignore_ascii_case(h))
        {
            continue;
        }
        out.push_str(header);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    Ok(Request::Forward {
        host,
        port,
        head: out.into_bytes(),
    })
}

/// `host:port`, `[v6]:port`, or a host alone when a default port is given.
pub fn authority(text: &str, default: Option<u16>) -> Option<(String, u16)> {
    let port = |p: &str| p.parse::<u16>().ok().filter(|&p| p > 0);
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after {
            "" => default?,
            _ => port(after.strip_prefix(':')?)?,
        };
        return (!host.is_empty()).then(|| (host.to_string(), port));
    }
    let (host, port) = match text.rsplit_once(':') {
        Some((host, p)) if !host.contains(':') => (host, port(p)?),
        Some(_) => return None,
        None => (text, default?),
    };
    (!host.is_empty()).then(|| (host.to_string(), port))
}

/// The answer to a refused or failed request: status, and the text its body carries.
pub fn answer(status: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}\n",
        body.len() + 1
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_and_absolute_form_and_rewrites() {
        assert_eq!(
            parse(b"CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: x\r\n\r\n"),
            Ok(Request::Connect {
                host: "registry.npmjs.org".into(),
                port: 443
            })
        );
        assert_eq!(
            parse(b"CONNECT [::1]:8443 HTTP/1.1\r\n\r\n"),
            Ok(Request::Connect {
                host: "::1".into(),
                port: 8443
            })
        );
        let head = b"GET http://Example.com:8080/a/b?c HTTP/1.1\r\nHost: Example.com:8080\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: x\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\n";
        assert_eq!(
            parse(head),
            Ok(Request::Forward {
                host: "Example.com".into(),
                port: 8080,
                head: b"GET /a/b?c HTTP/1.1\r\nHost: Example.com:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
                    .to_vec()
            })
        );
        let Ok(Request::Forward { port, head, .. }) =
            parse(b"GET http://a.test?q HTTP/1.0\r\n\r\n")
        else {
            panic!()
        };
        assert_eq!(
            (port, head),
            (
                80,
                b"GET /?q HTTP/1.0\r\nConnection: close\r\n\r\n".to_vec()
            )
        );
    }

    #[test]
    fn refuses_what_it_cannot_judge() {
        for bad in [
            &b"GET /local HTTP/1.1\r\n\r\n"[..],
            b"GET https://a.test/ HTTP/1.1\r\n\r\n",
            b"GET http://user@a.test/ HTTP/1.1\r\n\r\n",
            b"CONNECT a.test HTTP/1.1\r\n\r\n",
            b"CONNECT a.test:0 HTTP/1.1\r\n\r\n",
            b"GET http://a.test/ HTTP/2\r\n\r\n",
            b"GET  http://a.test/ HTTP/1.1\r\n\r\n",
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn head_reading_keeps_what_follows() {
        let mut rest: &[u8] = b"Host: a\r\n\r\nBODY";
        let (head, after) = read_head(&mut rest, b"GET http://a/ HTTP/1.1\r\n".to_vec()).unwrap();
        assert!(head.ends_with(b"\r\n\r\n"));
        assert_eq!(after, b"BODY");
        let mut endless = std::io::repeat(b'a');
        assert!(read_head(&mut endless, Vec::new()).is_err());
    }
}
