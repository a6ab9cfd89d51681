//! A runner's status lines, one per event, on its status channel (fd 3, or a `T` frame of `--stdio`): the host reads
//! them (src/executor/wire/status.ts) and never the command's output for any of these facts. A command's lines come
//! in this order: `runner`, `started`, then `deadline` and `stopping` as they happen,
//! then `exit` or `signal`, then `over` once its output is over; or, when it did not run, `workdir` or `error`.
//! A terminal job's `screen` comes whenever the supervisor asks for it.

use crate::control::Cause;
use crate::term::{Screen, SCREEN_ARGS};

/// The words, each with its arguments' names: the host's parser has exactly these.
pub const WORDS: &[(&str, &[&str])] = &[
    ("runner", &["pid"]),
    ("started", &["pid", "enforcement"]),
    ("deadline", &[]),
    ("stopping", &["cause"]),
    ("exit", &["code", "ended"]),
    ("signal", &["number", "ended"]),
    ("over", &["left"]),
    ("workdir", &["errno"]),
    ("error", &["code", "detail"]),
    ("screen", SCREEN_ARGS),
];

/// One status line.
#[derive(Debug, PartialEq, Eq, Clone)]
pub enum Status {
    /// A runner says its pid before anything else (a fork server's child: as the host sees it).
    Runner(i32),
    /// bash runs, its process group `pid`; `enforcement` is `none`, `full` or `partial`.
    Started { pid: i32, enforcement: String },
    /// bash reached its deadline, still running, under `AtTimeout::Report`.
    Deadline,
    /// The runner began ending the command, for this cause (the first): TERM now, KILL after the grace.
    Stopping(Cause),
    /// bash exited with this code; `ended`: processes it left running that ended with it (a command in a session
    /// sandbox has no init of its own to end them, so its runner does), written only when any did.
    Exit { code: i32, ended: u32 },
    /// bash was ended by this signal; `ended` as for `Exit`.
    Signal { number: i32, ended: u32 },
    /// The command's output is over (its pipes ended, or the drain bound passed after bash's end): how many of its
    /// processes it left running, which end with the runner.
    Over(usize),
    /// The working directory could not be entered: the errno of chdir(2). The command did not run.
    Workdir(i32),
    /// The runner failed and the command did not run: a stable code, and its detail.
    Error { code: String, detail: String },
    /// A terminal job's screen, as asked for (`control::Control::Screen`).
    Screen(Screen),
}

impl Status {
    /// The line, without its newline.
    pub fn line(&self) -> String {
        match self {
            Status::Runner(pid) => format!("runner {pid}"),
            Status::Started { pid, enforcement } => format!("started {pid} {enforcement}"),
            Status::Deadline => "deadline".into(),
            Status::Stopping(cause) => format!("stopping {}", cause.word()),
            Status::Exit { code, ended } => with_ended(format!("exit {code}"), *ended),
            Status::Signal { number, ended } => with_ended(format!("signal {number}"), *ended),
            Status::Over(left) => format!("over {left}"),
            Status::Workdir(errno) => format!("workdir {errno}"),
            Status::Error { code, detail } => format!("error {code} {detail}"),
            Status::Screen(screen) => format!("screen {}", screen.args()),
        }
    }

    /// A line as an event; None for a line no runner writes.
    pub fn parse(line: &str) -> Option<Status> {
        if line == "deadline" {
            return Some(Status::Deadline);
        }
        let (word, rest) = line.split_once(' ')?;
        let number = || rest.parse::<i32>().ok();
        Some(match word {
            "runner" => Status::Runner(number()?),
            "started" => {
                let (pid, enforcement) = rest.split_once(' ')?;
                Status::Started {
                    pid: pid.parse().ok()?,
                    enforcement: enforcement.to_owned(),
                }
            }
            "stopping" => Status::Stopping(Cause::parse(rest)?),
            "over" => Status::Over(rest.parse().ok()?),
            "exit" => {
                let (code, ended) = ended_of(rest)?;
                Status::Exit { code, ended }
            }
            "signal" => {
                let (number, ended) = ended_of(rest)?;
                Status::Signal { number, ended }
            }
            "workdir" => Status::Workdir(number()?),
            "error" => {
                let (code, detail) = rest.split_once(' ')?;
                Status::Error {
                    code: code.to_owned(),
                    detail: detail.to_owned(),
                }
            }
            "screen" => Status::Screen(Screen::parse(rest)?),
            _ => return None,
        })
    }

    /// True for the lines after which the command runs no more (it ended, or never ran).
    pub fn is_end(&self) -> bool {
        !matches!(
            self,
            Status::Runner(_)
                | Status::Started { .. }
                | Status::Deadline
                | Status::Stopping(_)
                | Status::Screen(_)
        )
    }
}

/// `<end>`, then ` <ended>` when any process ended with bash.
fn with_ended(end: String, ended: u32) -> String {
    if ended == 0 {
        end
    } else {
        format!("{end} {ended}")
    }
}

/// `<value>[ <ended>]`.
fn ended_of(rest: &str) -> Option<(i32, u32)> {
    match rest.split_once(' ') {
        Some((value, ended)) => Some((value.parse().ok()?, ended.parse().ok()?)),
        None => Some((rest.parse().ok()?, 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_reads_back_and_is_listed() {
        let all = [
            Status::Runner(5),
            Status::Started {
                pid: 9,
                enforcement: "full".into(),
            },
            Status::Deadline,
            Status::Stopping(Cause::Timeout),
            Status::Exit { code: -1, ended: 0 },
            Status::Exit { code: 3, ended: 2 },
            Status::Signal {
                number: 15,
                ended: 0,
            },
            Status::Signal {
                number: 9,
                ended: 1,
            },
            Status::Over(2),
            Status::Workdir(2),
            Status::Error {
                code: "RUNNER_SPAWN".into(),
                detail: "exec 2 No such file or directory\t/x y".into(),
            },
            Status::Screen(crate::term::Screen {
                size: crate::term::Size { cols: 80, rows: 2 },
                alternate: false,
                cursor_row: 1,
                cursor_col: 2,
                rows: vec![">>> 1+1".into(), "2".into()],
            }),
        ];
        for status in &all {
            assert_eq!(Status::parse(&status.line()).as_ref(), Some(status));
        }
        let mut words: Vec<&str> = all
            .iter()
            .map(|s| s.line().split(' ').next().unwrap().to_owned())
            .map(|w| WORDS.iter().find(|(word, _)| *word == w).unwrap().0)
            .collect();
        words.dedup();
        assert_eq!(words, WORDS.iter().map(|(w, _)| *w).collect::<Vec<_>>());
        assert_eq!(Status::parse("exit x"), None);
        assert_eq!(Status::parse("exit 0 x"), None);
        assert_eq!(Status::Exit { code: 0, ended: 0 }.line(), "exit 0");
        assert_eq!(
            Status::Signal {
                number: 15,
                ended: 2
            }
            .line(),
            "signal 15 2"
        );
        assert_eq!(Status::parse("garbled"), None);
    }
}
