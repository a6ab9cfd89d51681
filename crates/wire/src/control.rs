//! The supervisor's lines to a runner, on the channel the runner's status lines come back on (its status socket; a
//! `C` frame of `--stdio`): first the terms of the command's life, then what the supervisor asks during it — an end,
//! and for a terminal job its input, a new size, its screen. The runner keeps the terms itself — the deadline, TERM
//! then KILL after the grace, the bound on waiting for the output — the same code whichever server forked it
//! (src/executor/wire/control.ts writes these lines).

use crate::term::{hex, unhex, Size};

/// The words, each with its arguments' names: the host's writer has exactly these.
pub const WORDS: &[(&str, &[&str])] = &[
    ("life", &["timeoutMs", "atTimeout", "graceMs", "drainMs"]),
    ("kill", &["cause"]),
    ("output-ended", &[]),
    ("input", &["hex"]),
    ("resize", &["cols", "rows"]),
    ("screen", &[]),
    ("interrupt", &[]),
];

/// Why a command is ended from outside its own course.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Cause {
    /// It reached its deadline (the runner's own).
    Timeout,
    /// The call that started it was aborted.
    Abort,
    /// It was killed (a job killed, a person's stop).
    Kill,
}

pub const CAUSES: &[&str] = &["timeout", "abort", "kill"];

impl Cause {
    pub fn word(self) -> &'static str {
        CAUSES[self as usize]
    }

    pub fn parse(word: &str) -> Option<Cause> {
        [Cause::Timeout, Cause::Abort, Cause::Kill]
            .into_iter()
            .find(|cause| cause.word() == word)
    }
}

/// What the runner does when the command reaches its deadline.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum AtTimeout {
    /// End it: TERM, then KILL after the grace.
    Kill,
    /// Only say so (`deadline`): the supervisor decides (a foreground call moved to the background).
    Report,
}

pub const AT_TIMEOUT: &[&str] = &["kill", "report"];

/// The terms of a command's life, counted from the start of bash.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Terms {
    pub timeout_ms: u64,
    pub at_timeout: AtTimeout,
    /// From the TERM to the KILL.
    pub grace_ms: u64,
    /// From the end of bash, how long the output may take to end (a descendant may hold it open for ever).
    pub drain_ms: u64,
}

#[derive(Debug, PartialEq, Eq, Clone)]
pub enum Control {
    Life(Terms),
    /// End the command for this cause (the first cause wins; nothing once bash has ended).
    Kill(Cause),
    /// The command's output pipes have both reached end-of-file where they are read.
    OutputEnded,
    /// Bytes for a terminal job's program, as if typed.
    Input(Vec<u8>),
    /// The terminal takes this size (the program gets SIGWINCH).
    Resize(Size),
    /// Answer with the screen as it is now (a `screen` status line).
    Screen,
    /// ctrl-c: typed on a terminal, else SIGINT to the command's process group.
    Interrupt,
}

impl Control {
    /// True for what a terminal job's relay acts on (and an interrupt, which ends up as SIGINT without one); the rest
    /// is the command's course.
    pub fn for_terminal(&self) -> bool {
        matches!(
            self,
            Control::Input(_) | Control::Resize(_) | Control::Screen | Control::Interrupt
        )
    }

    /// The line, without its newline.
    pub fn line(&self) -> String {
        match self {
            Control::Life(terms) => format!(
                "life {} {} {} {}",
                terms.timeout_ms,
                AT_TIMEOUT[terms.at_timeout as usize],
                terms.grace_ms,
                terms.drain_ms
            ),
            Control::Kill(cause) => format!("kill {}", cause.word()),
            Control::OutputEnded => "output-ended".into(),
            Control::Input(bytes) => format!("input {}", hex(bytes)),
            Control::Resize(size) => format!("resize {} {}", size.cols, size.rows),
            Control::Screen => "screen".into(),
            Control::Interrupt => "interrupt".into(),
        }
    }

    /// A line as a request; None for one no supervisor writes.
    pub fn parse(line: &str) -> Option<Control> {
        let mut words = line.split(' ');
        let control = match words.next()? {
            "life" => {
                let mut number = || words.next()?.parse::<u64>().ok();
                let timeout_ms = number()?;
                let at_timeout = match words.next()? {
                    "kill" => AtTimeout::Kill,
                    "report" => AtTimeout::Report,
                    _ => return None,
                };
                let mut number = || words.next()?.parse::<u64>().ok();
                let (grace_ms, drain_ms) = (number()?, number()?);
                Control::Life(Terms {
                    timeout_ms,
                    at_timeout,
                    grace_ms,
                    drain_ms,
                })
            }
            "kill" => Control::Kill(Cause::parse(words.next()?)?),
            "output-ended" => Control::OutputEnded,
            // Empty input is a line of its own: `input ` (nothing typed, the reply still waited for).
            "input" => Control::Input(unhex(words.next()?)?),
            "resize" => {
                let mut number = || words.next()?.parse::<u64>().ok();
                let (cols, rows) = (number()?, number()?);
                Control::Resize(Size::new(cols, rows)?)
            }
            "screen" => Control::Screen,
            "interrupt" => Control::Interrupt,
            _ => return None,
        };
        words.next().is_none().then_some(control)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_reads_back_and_is_listed() {
        let all = [
            Control::Life(Terms {
                timeout_ms: 120_000,
                at_timeout: AtTimeout::Report,
                grace_ms: 3000,
                drain_ms: 2000,
            }),
            Control::Kill(Cause::Abort),
            Control::OutputEnded,
            Control::Input(b"ls\r\x03\x1b[A\0\xff".to_vec()),
            Control::Resize(Size {
                cols: 120,
                rows: 40,
            }),
            Control::Screen,
            Control::Interrupt,
        ];
        for control in &all {
            assert_eq!(Control::parse(&control.line()).as_ref(), Some(control));
        }
        let words: Vec<String> = all
            .iter()
            .map(|c| c.line().split(' ').next().unwrap().to_owned())
            .collect();
        assert_eq!(words, WORDS.iter().map(|(w, _)| *w).collect::<Vec<_>>());
        for bad in [
            "life 1 kill 2",
            "kill now",
            "output-ended x",
            "stop",
            "input 0",
            "input zz",
            "resize 80",
            "resize 1 24",
            "resize 80 1001",
            "screen now",
        ] {
            assert_eq!(Control::parse(bad), None, "{bad}");
        }
        assert_eq!(Control::parse("input "), Some(Control::Input(Vec::new())));
    }
}
