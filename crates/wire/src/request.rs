//! One command's request, as a runner reads it (from its status socket, or in a `--stdio` start frame): working
//! directory, the plan (confinement and command, see `plan`), environment and stdin, in one length-prefixed record the
//! host writes (src/executor/wire/request.ts), and the size of its terminal when it runs on one. None of the text fields can hold a NUL (the host refuses such
//! commands), and stdin comes last, so it may.

use std::io::Read;

use crate::fields::{framed, read_framed, Fields, Sink, Writer};
use crate::plan::Plan;
use crate::term::Size;

#[derive(Debug, PartialEq, Eq, Clone, Default)]
pub struct Request {
    pub cwd: String,
    pub plan: Plan,
    pub env: Vec<(String, String)>,
    /// Run on a terminal of this size, which the runner opens (see `term`); else on pipes.
    pub terminal: Option<Size>,
    pub stdin: Option<Vec<u8>>,
}

impl Request {
    /// Writes every field, named as the host names it.
    pub fn encode(&self, out: &mut impl Sink) {
        let Request {
            cwd,
            plan,
            env,
            terminal,
            stdin,
        } = self;
        out.text("cwd", cwd);
        plan.encode(out);
        out.pairs("env", env);
        out.count("terminal.cols", terminal.map(|t| u64::from(t.cols)));
        out.count("terminal.rows", terminal.map(|t| u64::from(t.rows)));
        out.rest("stdin", stdin.as_deref());
    }

    /// The record's bytes, length first.
    pub fn record(&self) -> Vec<u8> {
        let mut out = Writer::default();
        self.encode(&mut out);
        framed(&out.body)
    }
}

/// Reads one request (blocking).
///
/// # Errors
/// End-of-file before a whole record, an I/O error, a length too large, or a record that does not parse.
pub fn read(from: &mut impl Read) -> Result<Request, String> {
    parse(&read_framed(from)?)
}

/// # Errors
/// A message naming what is missing or malformed.
pub fn parse(body: &[u8]) -> Result<Request, String> {
    let mut fields = Fields::new(body);
    let cwd = fields.text()?;
    let plan = Plan::decode(&mut fields)?;
    let env = fields.pairs()?;
    let terminal = match (fields.text()?.as_str(), fields.text()?.as_str()) {
        ("", "") => None,
        (cols, rows) => Some(
            cols.parse()
                .ok()
                .zip(rows.parse().ok())
                .and_then(|(cols, rows)| Size::new(cols, rows))
                .ok_or_else(|| format!("request: not a terminal size: {cols:?} x {rows:?}"))?,
        ),
    };
    let stdin = fields.marked_rest()?;
    Ok(Request {
        cwd,
        plan,
        env,
        terminal,
        stdin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Backend;

    fn sample(stdin: Option<&[u8]>) -> Request {
        sample_on(stdin, None)
    }

    fn sample_on(stdin: Option<&[u8]>, terminal: Option<Size>) -> Request {
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
            terminal,
            stdin: stdin.map(<[u8]>::to_vec),
        }
    }

    /// A plan with nothing set: backend none, network allowed, auto isolation, host view, no limit, no lists.
    const PLAIN: &[u8] = b"none\0\0allow\0auto\0host\0\x000\x000\x000\x000\x000\x000\0";

    #[test]
    fn a_record_reads_back_whole() {
        for stdin in [None, Some(&b""[..]), Some(&b"line\n\0binary"[..])] {
            for terminal in [None, Some(Size { cols: 80, rows: 24 })] {
                let request = sample_on(stdin, terminal);
                assert_eq!(read(&mut request.record().as_slice()).unwrap(), request);
            }
        }
    }

    #[test]
    fn bad_records_are_refused_with_a_reason() {
        let record = sample(None).record();
        assert_eq!(
            read(&mut &record[..record.len() - 1]).unwrap_err(),
            "request: failed to fill whole buffer"
        );
        let body = |parts: &[&[u8]]| parts.concat();
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
            parse(&body(&[b"/w\0", PLAIN, b"x\x000\0\0\0"])).unwrap_err(),
            "request: the stdin marker is missing"
        );
        assert_eq!(
            parse(&body(&[b"/w\0", PLAIN, b"x\x000\x0080\x001\0-"])).unwrap_err(),
            "request: not a terminal size: \"80\" x \"1\""
        );
        assert_eq!(
            read(&mut &u32::MAX.to_le_bytes()[..]).unwrap_err(),
            "request: a frame of 4294967295 bytes is too large"
        );
    }
}
