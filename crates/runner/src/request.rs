//! One command's request as the fork server's child reads it from its status socket: working directory, runner
//! arguments, environment and stdin, in one length-prefixed frame the host writes right after handing over the fds.
//!
//! Frame: a little-endian u32 length, then NUL-terminated fields — cwd, the argument count, the arguments, the
//! environment count, the `NAME=value` entries — then `-` (no stdin) or `+` followed by the stdin bytes to the end.
//! None of the text fields can hold a NUL (the host refuses such commands), and stdin comes last, so it may.

use std::io::Read;

#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    pub cwd: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub stdin: Option<Vec<u8>>,
}

/// The largest frame accepted: commands and environments are far smaller; this only stops a corrupt length.
const MAX_FRAME: usize = 256 << 20;

/// Reads one frame (blocking).
///
/// # Errors
/// End-of-file before a whole frame, an I/O error, or a frame that does not parse.
pub fn read(from: &mut impl Read) -> Result<Request, String> {
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
    parse(&body)
}

/// # Errors
/// A message naming what is missing or malformed.
pub fn parse(body: &[u8]) -> Result<Request, String> {
    let mut rest = body;
    let mut field = || -> Result<String, String> {
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or("request: a field is not terminated")?;
        let text = std::str::from_utf8(&rest[..end])
            .map_err(|_| "request: a field is not UTF-8")?
            .to_owned();
        rest = &rest[end + 1..];
        Ok(text)
    };
    let count = |text: String| {
        text.parse::<usize>()
            .map_err(|_| format!("request: not a count: {text:?}"))
    };
    let cwd = field()?;
    let args = (0..count(field()?)?)
        .map(|_| field())
        .collect::<Result<Vec<_>, _>>()?;
    let env = (0..count(field()?)?)
        .map(|_| {
            let entry = field()?;
            let (name, value) = entry
                .split_once('=')
                .ok_or_else(|| format!("request: not NAME=value: {entry:?}"))?;
            Ok((name.to_owned(), value.to_owned()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let stdin = match rest.split_first() {
        Some((b'-', [])) => None,
        Some((b'+', bytes)) => Some(bytes.to_vec()),
        _ => return Err("request: the stdin marker is missing".into()),
    };
    Ok(Request {
        cwd,
        args,
        env,
        stdin,
    })
}

/// The frame for a request (the host builds the same bytes; this one serves the tests).
pub fn encode(request: &Request) -> Vec<u8> {
    let mut body = Vec::new();
    let mut field = |text: &str| {
        body.extend_from_slice(text.as_bytes());
        body.push(0);
    };
    field(&request.cwd);
    field(&request.args.len().to_string());
    request.args.iter().for_each(|a| field(a));
    field(&request.env.len().to_string());
    request
        .env
        .iter()
        .for_each(|(k, v)| field(&format!("{k}={v}")));
    match &request.stdin {
        None => body.push(b'-'),
        Some(bytes) => {
            body.push(b'+');
            body.extend_from_slice(bytes);
        }
    }
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(stdin: Option<&[u8]>) -> Request {
        Request {
            cwd: "/work".into(),
            args: vec!["--landlock".into(), "-c".into(), "echo a=b".into()],
            env: vec![
                ("PATH".into(), "/bin".into()),
                ("EMPTY".into(), String::new()),
                ("EQ".into(), "x=y".into()),
            ],
            stdin: stdin.map(<[u8]>::to_vec),
        }
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
            parse(b"/w\0x\0").unwrap_err(),
            "request: not a count: \"x\""
        );
        assert_eq!(
            parse(b"/w\x001\0-c").unwrap_err(),
            "request: a field is not terminated"
        );
        assert_eq!(
            parse(b"/w\x000\x001\0PATH\0-").unwrap_err(),
            "request: not NAME=value: \"PATH\""
        );
        assert_eq!(
            parse(b"/w\x000\x000\0").unwrap_err(),
            "request: the stdin marker is missing"
        );
        assert_eq!(
            read(&mut &u32::MAX.to_le_bytes()[..]).unwrap_err(),
            "request: a frame of 4294967295 bytes is too large"
        );
    }
}
