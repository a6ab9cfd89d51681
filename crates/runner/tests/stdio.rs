//! `--stdio` end to end: many commands over one stream, each reported by its id; a kill by its runner's terms,
//! leftovers, the drain bound and release; a slow reader holds the command back with the server's memory bounded;
//! closing the stream ends every command.

#[allow(dead_code)] // the helpers for fd 3 serve the other suites
mod common;

use common::{gone, wait_until};
use nix::unistd::Pid;
use shellring_runner::wire::frames::{self as frame, Frame};
use shellring_runner::wire::plan::Plan;
use shellring_runner::wire::request::Request;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Stream {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    buffer: Vec<u8>,
    frames: std::collections::VecDeque<Frame>,
}

/// What one command sent, gathered until its `G` frame.
#[derive(Default, Debug)]
struct Seen {
    out: Vec<u8>,
    err: Vec<u8>,
    /// The runner's pid, from its first line.
    runner: Option<String>,
    status: Vec<String>,
    left: Option<String>,
    gone: bool,
}

fn stream() -> Stream {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shellring-runner"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (stdin, stdout) = (child.stdin.take(), child.stdout.take().unwrap());
    Stream {
        child,
        stdin,
        stdout,
        buffer: Vec::new(),
        frames: Default::default(),
    }
}

fn request(command: &str) -> Request {
    Request {
        cwd: "/tmp".into(),
        plan: Plan {
            command: command.into(),
            ..Plan::default()
        },
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("MARK".into(), "remote".into()),
        ],
        terminal: None,
        stdin: None,
    }
}

impl Stream {
    fn send(&mut self, kind: u8, id: u32, payload: &[u8]) {
        self.stdin
            .as_mut()
            .unwrap()
            .write_all(&frame::encode(kind, id, payload))
            .unwrap();
    }

    fn start(&mut self, id: u32, command: &str) {
        let body = request(command).record();
        self.send(frame::START, id, &body[4..]);
    }

    /// A control line for the command's runner.
    fn control(&mut self, id: u32, line: &str) {
        self.send(frame::CONTROL, id, line.as_bytes());
    }

    fn next(&mut self) -> Option<Frame> {
        while self.frames.is_empty() {
            let mut chunk = [0u8; 65536];
            let n = self.stdout.read(&mut chunk).unwrap();
            if n == 0 {
                return None;
            }
            self.buffer.extend_from_slice(&chunk[..n]);
            self.frames.extend(frame::split(&mut self.buffer).unwrap());
        }
        self.frames.pop_front()
    }

    /// Reads frames into `seen` until `until` holds.
    fn gather(
        &mut self,
        seen: &mut HashMap<u32, Seen>,
        until: impl Fn(&HashMap<u32, Seen>) -> bool,
    ) {
        while !until(seen) {
            let Frame { kind, id, payload } = self.next().expect("the stream ended early");
            let entry = seen.entry(id).or_default();
            match kind {
                frame::STDOUT => entry.out.extend(payload),
                frame::STDERR => entry.err.extend(payload),
                frame::STATUS => {
                    let line = String::from_utf8(payload).unwrap();
                    if let Some(left) = line.strip_prefix("over ") {
                        entry.left = Some(left.to_owned());
                    } else if let Some(pid) = line.strip_prefix("runner ") {
                        assert!(entry.status.is_empty(), "runner after {:?}", entry.status);
                        entry.runner = Some(pid.to_owned());
                    } else {
                        entry.status.push(line);
                    }
                }
                frame::GONE => entry.gone = true,
                other => panic!("unexpected frame kind {other}"),
            }
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn started_pid(seen: &Seen) -> Pid {
    let line = seen
        .status
        .iter()
        .find(|l| l.starts_with("started "))
        .expect("a started line");
    Pid::from_raw(line.split(' ').nth(1).unwrap().parse().unwrap())
}

#[test]
fn many_commands_share_the_stream_each_reported_by_its_id() {
    let mut stream = stream();
    for id in 1..=8u32 {
        stream.start(
            id,
            &format!("for i in $(seq 1 2000); do echo {id}-$i; done; echo err-{id} >&2; echo $MARK $PWD; exit {id}"),
        );
        stream.control(id, "life 600000 kill 5000 5000");
    }
    let mut seen = HashMap::new();
    stream.gather(&mut seen, |seen| {
        (1..=8).all(|id| seen.get(&id).is_some_and(|s| s.gone))
    });
    for id in 1..=8u32 {
        let s = &seen[&id];
        let expected: String = (1..=2000)
            .map(|i| format!("{id}-{i}\n"))
            .collect::<String>()
            + "remote /tmp\n";
        assert_eq!(String::from_utf8_lossy(&s.out), expected);
        assert_eq!(s.err, format!("err-{id}\n").as_bytes());
        assert!(s
            .runner
            .as_ref()
            .is_some_and(|pid| pid.parse::<i32>().unwrap() > 1));
        assert_eq!(s.status.len(), 2, "{:?}", s.status);
        assert!(
            s.status[0].starts_with("started ") && s.status[0].ends_with(" none"),
            "{:?}",
            s.status
        );
        assert_eq!(s.status[1], format!("exit {id}"));
        assert_eq!(s.left.as_deref(), Some("0"));
    }
}

#[test]
fn a_bad_request_fails_alone_with_a_reason() {
    let mut stream = stream();
    stream.send(frame::START, 1, b"/tmp\0x\0");
    stream.start(2, "echo fine");
    let mut seen = HashMap::new();
    stream.gather(&mut seen, |seen| {
        [1, 2].iter().all(|id| seen.get(id).is_some_and(|s| s.gone))
    });
    assert_eq!(
        seen[&1].status,
        ["error RUNNER_REQUEST plan: unknown backend \"x\""]
    );
    assert_eq!(seen[&1].runner, None);
    assert_eq!(seen[&2].out, b"fine\n");
}

#[test]
fn a_kill_ends_the_group_by_the_terms_and_release_ends_what_was_left() {
    let mut stream = stream();
    // Signalled once its trap is set (its output says so), not merely once it started.
    stream.start(1, "trap 'exit 9' TERM; echo trapped; sleep 600 & wait");
    stream.start(
        2,
        "setsid bash -c 'sleep 600' </dev/null >/dev/null 2>&1 & echo $!",
    );
    stream.control(2, "life 600000 kill 5000 5000");
    let mut seen = HashMap::new();
    stream.gather(&mut seen, |seen| {
        seen.get(&1).is_some_and(|s| s.out == b"trapped\n")
            && seen.get(&2).is_some_and(|s| s.left.is_some())
    });
    stream.control(1, "life 600000 kill 5000 5000");
    stream.control(1, "kill abort");
    stream.gather(&mut seen, |seen| seen[&1].gone);
    assert_eq!(seen[&1].status[1..], ["stopping abort", "exit 9"]);
    // The setsid stray left its group; its runner holds it as a subreaper until released.
    assert_eq!(seen[&2].left.as_deref(), Some("1"));
    assert!(!seen[&2].gone);
    let stray = Pid::from_raw(
        String::from_utf8_lossy(&seen[&2].out)
            .trim()
            .parse()
            .unwrap(),
    );
    assert!(!gone(stray));
    stream.send(frame::RELEASE, 2, b"");
    stream.gather(&mut seen, |seen| seen[&2].gone);
    wait_until("the released stray to end", || gone(stray));
}

#[test]
fn output_still_held_by_a_descendant_ends_at_the_drain_bound() {
    let mut stream = stream();
    stream.start(1, "echo before; sleep 600 & exit 3");
    stream.control(1, "life 600000 kill 5000 1500");
    let mut seen = HashMap::new();
    stream.gather(&mut seen, |seen| {
        seen.get(&1).is_some_and(|s| s.status.len() == 2)
    });
    assert_eq!(seen[&1].status[1], "exit 3");
    assert!(seen[&1].left.is_none(), "the pipe is still open");
    stream.gather(&mut seen, |seen| seen[&1].left.is_some());
    assert_eq!(seen[&1].out, b"before\n");
    assert_eq!(seen[&1].left.as_deref(), Some("1"));
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_slow_reader_holds_the_command_back_with_memory_bounded() {
    let mut stream = stream();
    let size: u64 = 256 << 20;
    stream.start(1, &format!("head -c {size} /dev/zero; echo done >&2"));
    // Nothing is read for a while: the command must stall, not the server's memory grow.
    let mut seen = HashMap::new();
    stream.gather(&mut seen, |seen| {
        seen.get(&1).is_some_and(|s| !s.status.is_empty())
    });
    std::thread::sleep(std::time::Duration::from_secs(2));
    let server = stream.child.id();
    assert!(
        rss_kib(server) < 16 * 1024,
        "server RSS {} KiB",
        rss_kib(server)
    );
    let bash = started_pid(&seen[&1]);
    assert!(!gone(bash), "the command must still be held back");
    stream.gather(&mut seen, |seen| seen[&1].gone);
    let s = &seen[&1];
    assert_eq!(s.out.len() as u64, size);
    assert!(s.out.iter().all(|&b| b == 0));
    assert_eq!(s.err, b"done\n");
}

#[test]
fn closing_the_stream_ends_every_command_it_started() {
    let mut stream = stream();
    stream.start(1, "echo $$; sleep 600");
    stream.start(2, "setsid bash -c 'echo $$; exec sleep 600' & wait");
    stream.start(3, "trap '' TERM HUP; echo $$; sleep 600 </dev/null & wait");
    let mut seen = HashMap::new();
    stream.gather(&mut seen, |seen| {
        (1..=3).all(|id| seen.get(&id).is_some_and(|s| !s.out.is_empty()))
    });
    let pids: Vec<Pid> = (1..=3u32)
        .map(|id| {
            Pid::from_raw(
                String::from_utf8_lossy(&seen[&id].out)
                    .trim()
                    .parse()
                    .unwrap(),
            )
        })
        .collect();
    assert!(pids.iter().all(|&pid| !gone(pid)));
    drop(stream.stdin.take());
    wait_until("every command to end", || pids.iter().all(|&pid| gone(pid)));
    let status = stream.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

#[test]
fn stdout_and_stderr_interleaved_at_every_size_arrive_byte_exact() {
    let dir = std::env::temp_dir().join(format!("shellring-stdio-exact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("bytes");
    let bytes: Vec<u8> = (0..600_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&source, &bytes).unwrap();
    // Sizes around pipe pages, frame headers and the pipes' capacity, stdout and stderr in turn.
    let sizes = [
        1usize, 9, 4095, 4096, 4097, 65_535, 65_536, 65_537, 262_143, 262_144, 262_145, 600_000,
    ];
    let script: String = sizes
        .iter()
        .map(|n| {
            format!(
                "head -c {n} {0}; head -c {1} {0} >&2; ",
                source.display(),
                n / 3 + 1
            )
        })
        .collect();
    let mut stream = stream();
    stream.start(1, &script);
    stream.start(2, &format!("cat {} {0}", source.display()));
    let mut seen = HashMap::new();
    stream.gather(&mut seen, |seen| {
        [1, 2].iter().all(|id| seen.get(id).is_some_and(|s| s.gone))
    });
    let (want_out, want_err): (Vec<u8>, Vec<u8>) =
        sizes
            .iter()
            .fold((Vec::new(), Vec::new()), |(mut out, mut err), &n| {
                out.extend_from_slice(&bytes[..n]);
                err.extend_from_slice(&bytes[..n / 3 + 1]);
                (out, err)
            });
    assert!(seen[&1].out == want_out, "stdout differs");
    assert!(seen[&1].err == want_err, "stderr differs");
    assert!(seen[&2].out == [bytes.as_slice(), &bytes].concat());
    std::fs::remove_dir_all(&dir).unwrap();
}
