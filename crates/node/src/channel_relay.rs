//! The SSH executor's channel relay: one thread per `shellring-runner --stdio` channel reads the frames the ssh client
//! writes to its stdout and puts each command's output straight into that command's capture, off the JavaScript
//! thread and without a pipe in between; the few other frames (status, output over, gone) are queued for
//! JavaScript, which takes them in batches, read. Payloads are read, not spliced into the spill file: splice(2) from the
//! channel (pipe pages of the ssh client's writes) into a file measured more CPU per GiB than a read and one write.
//! Flow control is the thread itself: a capture write (a spill file on a slow disk) holds up the next read, the
//! channel's window fills, and the runner stops reading the command's pipes.
//!
//! Frames: `shellring_wire::frames`.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use std::collections::HashMap;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::fd::{AsFd, AsRawFd, FromRawFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use napi::bindgen_prelude::{Buffer, Object};
use napi::{Env, JsDeferred};
use napi_derive::napi;
use shellring_core::pipe_moves;

use crate::guard::{error, guard, id, Result, INVALID_ARGUMENT, NAPI};

mod parser;
use crate::js_buffer::JsValue;
use parser::Parser;

/// The most taken from the channel at once: a whole frame of the runner's (at most its command pipe's 256 KiB of
/// output), and no more, since every channel's thread keeps its buffer.
const READ: usize = 256 << 10;
/// How long the relay waits for more of a frame it began reading, when the channel holds none of it yet.
const REST: std::time::Duration = std::time::Duration::from_micros(500);

/// A frame that is not output, as JavaScript takes it.
#[napi(object)]
pub struct RelayFrame {
    pub kind: u32,
    pub id: u32,
    pub payload: Buffer,
}

type Resolver = Box<dyn FnOnce(Env) -> napi::Result<Option<Vec<RelayFrame>>> + Send>;
type Waiter = JsDeferred<Option<Vec<RelayFrame>>, Resolver>;

/// A frame read whole: kind, command id, payload.
type Whole = (u8, u32, Vec<u8>);

#[derive(Default)]
struct Queue {
    /// Whole non-output frames, as they came, not yet taken.
    frames: Vec<Whole>,
    /// Set once the thread stopped: `Some(None)` at end of stream, `Some(Some(why))` on a corrupt one.
    ended: Option<Option<String>>,
    waiting: Option<Waiter>,
}

#[derive(Default)]
struct Relay {
    /// Command id on this channel to capture id: only commands started on it receive its output.
    routes: Mutex<HashMap<u32, u64>>,
    queue: Mutex<Queue>,
}

impl Relay {
    fn route(&self, command: u32) -> Option<u64> {
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&command)
            .copied()
    }

    fn push(&self, frame: Whole) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.frames.push(frame);
        settle(&mut queue);
    }

    fn end(&self, why: Option<String>) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.ended = Some(why);
        settle(&mut queue);
    }
}

/// Hands a waiting `next` what there is: the queued frames first, the end once nothing is left.
fn settle(queue: &mut Queue) {
    if queue.frames.is_empty() && queue.ended.is_none() {
        return;
    }
    let Some(waiter) = queue.waiting.take() else {
        return;
    };
    if !queue.frames.is_empty() {
        let frames = std::mem::take(&mut queue.frames);
        waiter.resolve(Box::new(move |_| {
            let frames = frames.into_iter().map(|(kind, id, payload)| RelayFrame {
                kind: kind.into(),
                id,
                payload: payload.into(),
            });
            Ok(Some(frames.collect()))
        }));
    } else if let Some(Some(why)) = &queue.ended {
        waiter.reject(napi::Error::from_reason(why.clone()));
    } else {
        waiter.resolve(Box::new(|_| Ok(None)));
    }
}

fn relays() -> &'static Mutex<HashMap<u32, Arc<Relay>>> {
    static RELAYS: OnceLock<Mutex<HashMap<u32, Arc<Relay>>>> = OnceLock::new();
    RELAYS.get_or_init(Default::default)
}

fn lookup(relay: u32) -> Option<Arc<Relay>> {
    relays()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&relay)
        .cloned()
}

fn relay(relay: u32) -> Result<Arc<Relay>> {
    lookup(relay).ok_or_else(|| error(INVALID_ARGUMENT, format!("unknown relay {relay}")))
}

/// Relays until the channel ends; returns why it ended early (a corrupt stream), if it did.
fn run(relay: &Relay, mut channel: File) -> Option<String> {
    let mut buf = vec![0u8; READ];
    let mut parser = Parser::new();
    loop {
        // The runner sends a frame's header only once its whole payload is on the way, so waiting for the rest of
        // a frame never waits on the command.
        let wanted = parser.wanted();
        let (got, ended) = fill(&mut channel, &mut buf[..wanted]);
        if let Err(why) = parser.feed(relay, &buf[..got]) {
            break Some(why);
        }
        if ended {
            break None;
        }
    }
}

/// Reads until `buf` is full; true with it when the channel ended first (end of stream, or it failed under us:
/// either way nothing more will come).
fn fill(channel: &mut File, buf: &mut [u8]) -> (usize, bool) {
    let mut got = 0;
    while got < buf.len() {
        match channel.read(&mut buf[got..]) {
            Ok(0) => return (got, true),
            Ok(n) => {
                got += n;
                if got < buf.len() && pipe_moves::waiting(channel.as_fd()) == 0 {
                    // The rest of a frame is on its way at the channel's speed (the runner sent the header only with
                    // all of it): a short rest lets ssh write several packets before this thread reads, rather than
                    // waking it (and paying for the wake in ssh) for each.
                    std::thread::sleep(REST);
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return (got, true),
        }
    }
    (got, false)
}

/// Makes reads of the channel wait for bytes: that wait is the relay's flow control.
fn blocking(channel: &File) {
    let fd = channel.as_raw_fd();
    // SAFETY: fcntl on an fd `channel` owns and keeps open for the call.
    unsafe {
        libc::fcntl(
            fd,
            libc::F_SETFL,
            libc::fcntl(fd, libc::F_GETFL) & !libc::O_NONBLOCK,
        )
    };
}

static NEXT_RELAY: AtomicU32 = AtomicU32::new(1);

/// Starts relaying the channel whose read end is `fd` (a pipe from [`crate::pipes::pipe`]; the relay owns and
/// closes it from now on, even on error). Returns the relay's id.
#[napi]
pub fn relay_start(fd: i32) -> Result<u32> {
    guard(|| {
        // SAFETY: the caller hands fd over; the File owns (and closes) it from here on.
        let channel = unsafe { File::from_raw_fd(fd) };
        blocking(&channel);
        let relay = Arc::new(Relay::default());
        let number = NEXT_RELAY.fetch_add(1, Ordering::Relaxed);
        let thread = Arc::clone(&relay);
        std::thread::Builder::new()
            .name("shellring-relay".into())
            .spawn(move || {
                // A panic here must still end the relay (JavaScript then ends the channel), never leave it waiting;
                // unwinding drops, and so closes, the channel.
                let why = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run(&thread, channel)
                }))
                .unwrap_or_else(|_| Some("the channel relay panicked".into()));
                thread.end(why);
            })
            .map_err(|e| error(NAPI, format!("cannot start the channel relay: {e}")))?;
        relays()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(number, relay);
        Ok(number)
    })
}

/// Sends the output of the channel's command `command` to `capture` (before the command's start frame goes out). A
/// relay that has ended routes nothing: its channel is gone, and the command fails with it.
#[napi]
pub fn relay_route(relay_id: u32, command: u32, capture: f64) -> Result<()> {
    guard(|| {
        let capture = id(capture)?;
        if let Some(relay) = lookup(relay_id) {
            relay
                .routes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(command, capture);
        }
        Ok(())
    })
}

/// Stops sending the command's output anywhere (its result is out).
#[napi]
pub fn relay_unroute(relay_id: u32, command: u32) -> Result<()> {
    guard(|| {
        if let Some(relay) = lookup(relay_id) {
            relay
                .routes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&command);
        }
        Ok(())
    })
}

/// The next batch of non-output frames, in order, `null` once the channel ended and every frame was taken (the relay
/// is gone then); rejects on a corrupt stream. One call waiting at a time.
#[napi(ts_return_type = "Promise<RelayFrame[] | null>")]
pub fn relay_next(env: Env, relay_id: u32) -> Result<JsValue> {
    guard(|| {
        let relay = relay(relay_id)?;
        let (waiter, promise): (Waiter, Object<'_>) =
            env.create_deferred().map_err(|e| error(NAPI, e))?;
        let mut queue = relay.queue.lock().unwrap_or_else(PoisonError::into_inner);
        if queue.waiting.is_some() {
            return Err(error(
                INVALID_ARGUMENT,
                format!("relay {relay_id} already has a call waiting"),
            ));
        }
        queue.waiting = Some(waiter);
        if queue.frames.is_empty() && queue.ended.is_some() {
            relays()
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&relay_id);
        }
        settle(&mut queue);
        Ok(JsValue::of(&promise))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shellring_core::{registry, CaptureOptions, SpillState, Stream};

    use shellring_wire::frames::encode as frame;

    #[test]
    fn output_reaches_its_own_capture_and_other_frames_queue_whole_however_the_stream_is_cut() {
        let stream = [
            frame(b'O', 1, b"hello "),
            frame(b'T', 1, b"exit 0"),
            frame(b'E', 1, b"oops"),
            frame(b'O', 2, b"for a command started elsewhere"),
            frame(b'O', 1, b""),
            frame(b'O', 1, b"world"),
            frame(b'X', 1, b""),
        ]
        .concat();
        for cut in 1..=stream.len() {
            let capture = registry::create(CaptureOptions::default()).unwrap();
            let relay = Relay::default();
            relay.routes.lock().unwrap().insert(1, capture);
            let mut parser = Parser::new();
            for chunk in stream.chunks(cut) {
                parser.feed(&relay, chunk).unwrap();
            }
            assert_eq!(
                registry::tail(capture, Stream::Stdout).unwrap(),
                b"hello world",
                "cut {cut}"
            );
            assert_eq!(
                registry::tail(capture, Stream::Stderr).unwrap(),
                b"oops",
                "cut {cut}"
            );
            assert_eq!(
                relay.queue.lock().unwrap().frames,
                [(b'T', 1, b"exit 0".to_vec()), (b'X', 1, vec![])],
                "cut {cut}"
            );
            registry::free(capture).unwrap();
        }
    }

    #[test]
    fn reads_are_sized_to_finish_a_header_or_a_whole_payload() {
        let capture = registry::create(CaptureOptions::default()).unwrap();
        let relay = Relay::default();
        relay.routes.lock().unwrap().insert(4, capture);
        let big: Vec<u8> = (0..READ + 1000).map(|i| (i % 251) as u8).collect();
        let stream = [
            frame(b'O', 4, &big[..100_000]),
            frame(b'T', 4, b"exit 0"),
            frame(b'O', 4, &big),
        ]
        .concat();
        let mut parser = Parser::new();
        let mut wanted = Vec::new();
        let mut at = 0;
        while at < stream.len() {
            let n = parser.wanted();
            wanted.push(n);
            parser.feed(&relay, &stream[at..at + n]).unwrap();
            at += n;
        }
        assert_eq!(wanted, [4, 5, 100_000, 4, 5, 6, 4, 5, READ, 1000]);
        assert_eq!(parser.wanted(), 4);
        let mut want = big[..100_000].to_vec();
        want.extend_from_slice(&big);
        let info = registry::info(capture, Stream::Stdout).unwrap();
        assert_eq!(info.total, want.len() as u64);
        assert_eq!(
            registry::tail(capture, Stream::Stdout).unwrap(),
            want[want.len() - info.retained..]
        );
        registry::free(capture).unwrap();
    }

    #[test]
    fn a_length_no_runner_writes_is_refused_before_a_whole_header_came() {
        // Eight bytes of text: never a header, and no ninth byte is waited for.
        let relay = Relay::default();
        let mut parser = Parser::new();
        assert_eq!(parser.wanted(), 4);
        assert_eq!(
            parser.feed(&relay, b"garb"),
            Err("a frame of 1651663207 bytes".into())
        );
    }

    #[test]
    fn a_length_too_short_or_too_long_is_a_corrupt_stream() {
        let relay = Relay::default();
        assert_eq!(
            Parser::new().feed(&relay, &[4, 0, 0, 0, b'O', 1, 0, 0, 0]),
            Err("a frame of 4 bytes".into())
        );
        let huge = ((shellring_wire::frames::MAX_FRAME + 1) as u32).to_le_bytes();
        assert!(Parser::new()
            .feed(&relay, &[huge.as_slice(), &[b'O', 1, 0, 0, 0]].concat())
            .is_err());
    }

    /// A channel as the relay gets it: a pipe of the reactor's kind, its read end made blocking.
    fn channel() -> (File, File) {
        let (r, w) = shellring_core::pipe::pipe().unwrap();
        // SAFETY: both fds were just created and are owned here alone.
        let (r, w) = unsafe { (File::from_raw_fd(r), File::from_raw_fd(w)) };
        blocking(&r);
        (r, w)
    }

    #[test]
    fn a_payload_that_arrives_in_pieces_is_gathered_whole_across_rests() {
        use std::io::Write;
        let (mut r, mut w) = channel();
        let payload = pattern(200_000, 3);
        let sent = payload.clone();
        let writer = std::thread::spawn(move || {
            for piece in sent.chunks(32 << 10) {
                w.write_all(piece).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        });
        let mut buf = vec![0u8; payload.len()];
        assert_eq!(fill(&mut r, &mut buf), (payload.len(), false));
        assert!(buf == payload);
        writer.join().unwrap();
        // The writer is gone: what is left is the end.
        assert_eq!(fill(&mut r, &mut buf[..1]), (0, true));
    }

    fn spill_dir(tag: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("shellring-relay-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        dir
    }

    fn spilling(dir: &std::path::Path, spill_cap: u64) -> CaptureOptions {
        CaptureOptions {
            stdout_cap: 16,
            stderr_cap: 16,
            spill_dir: Some(dir.to_path_buf()),
            spill_cap,
            ring: Some(shellring_core::RingOptions {
                live_limit: 24,
                settled_limit: 24,
            }),
            ..Default::default()
        }
    }

    /// Text, so that the ring (which holds back an incomplete UTF-8 sequence) shows every byte.
    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| b'a' + ((i as u8).wrapping_mul(7).wrapping_add(seed) % 26))
            .collect()
    }

    /// What memory shows of a capture: both tails and the whole ring.
    fn shown(capture: u64) -> (Vec<u8>, Vec<u8>, shellring_core::RingRead) {
        (
            registry::tail(capture, Stream::Stdout).unwrap(),
            registry::tail(capture, Stream::Stderr).unwrap(),
            registry::ring_observe(capture, 0, 1 << 20).unwrap(),
        )
    }

    #[test]
    fn a_relayed_channel_ends_as_plain_writes_of_its_frames_would_past_the_spill_cap_too() {
        use std::io::Write;
        for (tag, cap) in [("whole", u64::MAX), ("capped", 100_000)] {
            let dir = spill_dir(tag);
            let capture = registry::create(spilling(&dir, cap)).unwrap();
            let mut plain = spilling(&dir, cap);
            plain.spill_dir = None;
            let written = registry::create(plain).unwrap();
            let relay = Relay::default();
            relay.routes.lock().unwrap().insert(7, capture);
            let (r, mut w) = channel();
            let mut stream = Vec::new();
            let mut everything = Vec::new();
            for n in 0..12u8 {
                let out = pattern(30_000 + usize::from(n) * 1000, n);
                let err = pattern(usize::from(n) * 10, n + 100);
                registry::write(written, Stream::Stdout, &out).unwrap();
                registry::write(written, Stream::Stderr, &err).unwrap();
                stream.extend_from_slice(&frame(b'O', 7, &out));
                stream.extend_from_slice(&frame(b'E', 7, &err));
                everything.extend_from_slice(&out);
            }
            // A few stdout bytes after stderr's: the ring shows them last, as they came.
            registry::write(written, Stream::Stdout, b"last!").unwrap();
            stream.extend_from_slice(&frame(b'O', 7, b"last!"));
            everything.extend_from_slice(b"last!");
            stream.extend_from_slice(&frame(b'X', 7, b""));
            let writer = std::thread::spawn(move || w.write_all(&stream).unwrap());
            assert_eq!(run(&relay, r), None, "{tag}");
            writer.join().unwrap();
            assert_eq!(
                relay.queue.lock().unwrap().frames,
                [(b'X', 7, vec![])],
                "{tag}"
            );
            assert_eq!(shown(capture), shown(written), "{tag}");
            registry::finish(capture).unwrap();
            let info = registry::info(capture, Stream::Stdout).unwrap();
            assert_eq!(info.total, everything.len() as u64, "{tag}");
            if cap == u64::MAX {
                assert_eq!(info.spill, SpillState::Complete, "{tag}");
                assert!(std::fs::read(info.spill_path.unwrap()).unwrap() == everything);
            } else {
                // The stream outgrew the cap: the file is dropped, never left partial.
                assert_eq!(
                    (info.spill, info.spill_path),
                    (SpillState::Unavailable, None),
                    "{tag}"
                );
                assert!(!dir.join(format!("capture-{capture}.stdout.log")).exists());
            }
            registry::free(capture).unwrap();
            registry::free(written).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}
