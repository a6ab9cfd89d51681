//! One command's request as the fork server's child reads it from its status socket: working directory, the plan
//! (confinement and command, see `plan`), environment and stdin, in one length-prefixed frame the host writes right
//! after handing over the fds (src/executor/runner-request.ts).
//!
//! Frame: a little-endian u32 length, then NUL-terminated fields — cwd, the plan's fields, the environment count,
//! the `NAME=value` entries — then `-` (no stdin) or `+` followed by the stdin bytes to the end.
//! None of the text fields can hold a NUL (the host refuses such commands), and stdin comes last, so it may.

use std::io::Read;

use crate::fields::{framed, Fields, Writer};
use crate::plan::Plan;

#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    pub cwd: String,
    pub plan: Plan,
    pub env: Vec<(String, String)>,
    pub stdin: Option<Vec<u8>>,
}

/// The largest frame accepted: commands and environments are far smaller; this only stops a corrupt length.
const MAX_FRAME: usize = 256 << 20;

/// Reads one frame's body (blocking).
///
/// # Errors
/// End-of-file before a whole frame, an I/O error, or a length too large.
pub fn read_frame(from: &mut impl Read) -> Result<Vec<u8>, String> {
    let mut length = [0u8; 4];
    from.read_exact(&mut length)
        .map_err(|e| format!("request: {e}"))?;
    let length = u32::from_le_bytes(length) as usize;
    if length > MAX_FRAME {
        return Err(format!("request: a frame of {length} bytes is too large"));
    }
    let mut body = vec![0u8; length];
    from.read_exact(&mut body)
        .map_err(|e| format!("request: {e}"))?;
    Ok(body)
}

/// Reads one request (blocking).
///
/// # Errors
/// As `read_frame`, or a frame that does not parse.
pub fn read(from: &mut impl Read) -> Result<Request, String> {
    parse(&read_frame(from)?)
}

/// # Errors
/// A message naming what is missing or malformed.
pub fn parse(body: &[u8]) -> Result<Request, String> {
    let mut fields = Fields::new(body);
    let cwd = fields.text()?;
    let plan = Plan::decode(&mut fields)?;
    let env = fields
        .list()?
        .into_iter()
        .map(|entry| match entry.split_once('=') {
            Some((name, value)) => Ok((name.to_owned(), value.to_owned())),
            None => Err(format!("request: not NAME=value: {entry:?}")),
        })
        .collect::<Result<Vec<_>, String>>()?;
    let stdin = match fields.rest().split_first() {
        Some((b'-', [])) => None,
        Some((b'+', bytes)) => Some(bytes.to_vec()),
        _ => return Err("request: the stdin marker is missing".into()),
    };
    Ok(Request {
        cwd,
        plan,
        env,
        stdin,
    })
}

/// The frame for a request (the host builds the same bytes; this one serves the tests).
pub fn encode(request: &Request) -> Vec<u8> {
    let mut out = Writer::default();
    out.text(&request.cwd);
    request.plan.encode(&mut out);
    let env: Vec<String> = request
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    out.list(&env);
    match &request.stdin {
        None => out.body.push(b'-'),
        Some(bytes) => {
            out.body.push(b'+');
            out.body.extend_from_slice(bytes);
        }
    }
    framed(&out.body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Backend;

    fn sample(stdin: Option<&[u8]>) -> Request {
        Request {
            cwd: "/work".into(),
            plan: Plan {
                backend: Backend::Landlock,
                command: "echo a=b".into(),
                ..Plan::default()
            },
            env: vec![
                ("PATH".into(), "/bin".into()),
                ("EMPTY".into(), String::new()),
                ("EQ".into(), "x=y".into()),
            ],
            stdin: stdin.map(<[u8]>::to_vec),
        }
    }

    /// A plan with nothing set: backend none, network allowed, auto isolation, host view, no limit, no lists.
    const PLAIN: &[u8] = b"none\0\0allow\0auto\0host\0\x000\x000\x000\x000\x000\x000\0";

    fn body(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    #[test]
    fn a_frame_reads_back_whole() {
        for stdin in [None, Some(&b""[..]), Some(&b"line\n\0binary"[..])] {
            let request = sample(stdin);
            assert_eq!(read(&mut encode(&request).as_slice()).unwrap(), request);
        }
    }

    #[test]
    fn bad_frames_are_refused_with_a_reason() {
        let frame = encode(&sample(None));
        assert_eq!(
            read(&mut &frame[..frame.len() - 1]).unwrap_err(),
            "request: failed to fill whole buffer"
        );
        assert_eq!(
            parse(&body(&[b"/w\0", PLAIN, b"x\0x\0"])).unwrap_err(),
            "request: not a count: \"x\""
        );
        assert_eq!(
            parse(&body(&[b"/w\0", PLAIN, b"x"])).unwrap_err(),
            "request: a field is not terminated"
        );
        assert_eq!(
            parse(&body(&[b"/w\0", PLAIN, b"x\x001\0PATH\0-"])).unwrap_err(),
            "request: not NAME=value: \"PATH\""
        );
        assert_eq!(
            parse(&body(&[b"/w\0", PLAIN, b"x\x000\0"])).unwrap_err(),
            "request: the stdin marker is missing"
        );
        assert_eq!(
            read(&mut &u32::MAX.to_le_bytes()[..]).unwrap_err(),
            "request: a frame of 4294967295 bytes is too large"
        );
    }
}
