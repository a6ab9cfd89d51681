//! A capture shared between threads: memory behind a short lock, each spill file behind its own, and
//! published figures that anyone reads without waiting.
//!
//! File writes happen only under a spill lock, which no reader of sizes, state or output ever takes: a thread
//! that blocks on a slow disk delays its own stream's file, never the host. `finish` never waits for a spill
//! lock either: when a writer holds one, that writer closes the file as it lets go. The one file read is memory
//! catching up with bytes the reactor spliced into a file (see `behind`): the newest bytes memory keeps, just
//! written, read back from the page cache under the memory lock. Without a file, the reactor moves a pipe's pages
//! into the stream's holding pipe under the memory lock: pages change hands, nothing is copied.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use crate::behind::Held;
use crate::capture::{spills, Memory, Stream, StreamInfo};
use crate::options::CaptureOptions;
use crate::ring::RingState;
use crate::spill::{Spill, SpillState};
use crate::stats::Stats;

#[derive(Debug)]
pub struct SharedCapture {
    memory: Mutex<Held>,
    spills: [Mutex<Spill>; 2],
    /// Where each stream's spill file goes, for reports that must not take the spill lock.
    targets: [Option<PathBuf>; 2],
    stats: Stats,
    has_ring: bool,
    /// Set by a `finish` that found a spill lock held; that lock's holder closes the file as it lets go.
    closing: [AtomicBool; 2],
    /// Pipes attached and not yet at end-of-file or abandoned.
    readers: AtomicU32,
}

// A panic caught at the binding boundary poisons the lock it held; the data behind it is still consistent
// enough to serve other sessions, which matters more than refusing every later call.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SharedCapture {
    pub fn new(id: u64, options: &CaptureOptions) -> Self {
        let spills = spills(id, options);
        let targets = [spills[0].target(), spills[1].target()];
        let stats = Stats::default();
        for stream in [Stream::Stdout, Stream::Stderr] {
            stats.publish_spill(stream, spills[stream as usize].state());
        }
        let memory = Memory::new(options);
        stats.publish(&memory);
        SharedCapture {
            memory: Mutex::new(Held::new(memory)),
            spills: spills.map(Mutex::new),
            targets,
            stats,
            has_ring: options.ring.is_some(),
            closing: [AtomicBool::new(false), AtomicBool::new(false)],
            readers: AtomicU32::new(0),
        }
    }

    /// Appends `data` to `stream` (after `finish` too: the tail keeps counting, the closed file takes nothing).
    pub fn write(&self, stream: Stream, data: &[u8]) {
        self.append(stream, data, true);
    }

    /// Appends what a pipe gave; false (and nothing written) once the capture is finished: those bytes belong
    /// to no result.
    pub fn write_from_pipe(&self, stream: Stream, data: &[u8]) -> bool {
        self.append(stream, data, false)
    }

    fn append(&self, stream: Stream, data: &[u8], after_finish: bool) -> bool {
        let index = stream as usize;
        let mut spill = lock(&self.spills[index]);
        // A finish that found the lock held left the file to us: it takes nothing written after the finish.
        if self.closing[index].swap(false, Ordering::SeqCst) {
            spill.finish();
        }
        let (total, cap, window) = {
            let mut memory = self.memory();
            if memory.finished() && !after_finish {
                return false;
            }
            let tail = memory.tail(stream);
            let (total, cap) = (tail.total(), tail.cap());
            // At the first overflow the file is back-filled from the tail, copied before the chunk enters it.
            let window = if spill.wants_window(total, cap, data.len()) {
                tail.window()
            } else {
                Vec::new()
            };
            memory.write(stream, data);
            self.stats.publish(&memory);
            (total, cap, window)
        };
        spill.write(total, cap, [&window, &[]], data);
        self.stats.publish_spill(stream, spill.state());
        drop(spill);
        self.close_pending_spill(stream);
        true
    }

    /// Takes what a pipe holding `waiting` bytes holds without reading it through memory where it can: while the
    /// stream's spill file is active, every byte goes from the pipe straight into the file and memory catches up
    /// from the file when next locked (see `behind`); without a file, once the pipe holds more than memory keeps of
    /// the stream, only the newest bytes memory keeps are held, in a pipe of the stream's, and memory catches up
    /// from there (see `holding`; `buf` serves only where /dev/null refuses a splice). The tail, the ring and the
    /// file end as if every byte had been read and written. `None`: nothing was taken (the spill file is still to be
    /// started, the file system refuses splice(2), there is nothing to skip, or the holding pipe refused bytes),
    /// read the pipe as usual. `Some(false)`: the capture is finished and what was taken belongs to no result.
    #[cfg(target_os = "linux")]
    pub fn take_unread(
        &self,
        stream: Stream,
        pipe: std::os::fd::BorrowedFd<'_>,
        waiting: usize,
        null: std::os::fd::BorrowedFd<'_>,
        buf: &mut [u8],
    ) -> Option<bool> {
        let index = stream as usize;
        let mut spill = lock(&self.spills[index]);
        if self.closing[index].swap(false, Ordering::SeqCst) {
            spill.finish();
        }
        let taken = match spill.state() {
            // Until the file starts it must be back-filled from the tail, which the usual path does.
            SpillState::None => None,
            SpillState::Active => self.splice_to_file(stream, &mut spill, pipe, waiting),
            SpillState::Complete | SpillState::Unavailable => {
                self.hold_newest(stream, pipe, waiting, null, buf)
            }
        };
        self.stats.publish_spill(stream, spill.state());
        drop(spill);
        self.close_pending_spill(stream);
        taken
    }

    /// Splices every byte the pipe holds into the active spill file; memory falls behind by them.
    #[cfg(target_os = "linux")]
    fn splice_to_file(
        &self,
        stream: Stream,
        spill: &mut Spill,
        pipe: std::os::fd::BorrowedFd<'_>,
        waiting: usize,
    ) -> Option<bool> {
        if waiting == 0 {
            return None;
        }
        // Taken before the splice: a file dropped by a failing splice still holds what it took.
        let reader = spill.reader()?.clone();
        // The file holds the whole stream; only this stream's writers change its total, each under the spill lock.
        let total = self.stats.tail(stream).total;
        let relayed = spill.splice_in(pipe, waiting, total)?;
        let mut held = lock(&self.memory);
        if held.finished() {
            spill.truncate_to(total);
            return Some(false);
        }
        if relayed.in_file == 0 && relayed.stranded.is_empty() {
            return Some(true);
        }
        if relayed.in_file > 0 {
            held.fell_behind(stream, &reader, total, relayed.in_file);
        }
        if !relayed.stranded.is_empty() {
            // The file failed after these left the pipe: memory takes them as a read would have.
            held.catch_up();
            held.write(stream, &relayed.stranded);
        }
        self.publish_held(&held);
        Some(true)
    }

    /// Without a file: keeps only the newest bytes memory keeps of what the pipe holds, in the stream's holding
    /// pipe, for memory to read when it catches up (see `behind`).
    #[cfg(target_os = "linux")]
    fn hold_newest(
        &self,
        stream: Stream,
        pipe: std::os::fd::BorrowedFd<'_>,
        waiting: usize,
        null: std::os::fd::BorrowedFd<'_>,
        buf: &mut [u8],
    ) -> Option<bool> {
        if waiting == 0 {
            return None;
        }
        let mut held = lock(&self.memory);
        if held.finished() {
            return Some(false);
        }
        let took = held.hold_newest(stream, pipe, waiting, null, buf);
        self.publish_held(&held);
        took.then_some(true)
    }

    /// Publishes memory's figures, or only its totals while it is behind.
    #[cfg(target_os = "linux")]
    fn publish_held(&self, held: &Held) {
        let behind = [held.behind(Stream::Stdout), held.behind(Stream::Stderr)];
        if behind == [0, 0] {
            self.stats.publish(held);
        } else {
            self.stats.publish_behind(held, behind);
        }
    }

    /// The memory, caught up with what the spill files or the holding pipes took past it: every access but the
    /// reactor's splices goes through here, so nothing sees memory behind. Catching up reads at most what memory
    /// keeps of each stream, from files just written, which the page cache holds, or from a holding pipe.
    fn memory(&self) -> MutexGuard<'_, Held> {
        let mut held = lock(&self.memory);
        if held.catch_up() {
            self.stats.publish(&held);
        }
        held
    }

    /// Makes the published figures current: while memory is behind its spill files, only the stream totals are,
    /// and a reader of the ring's offsets or a window's size must see what memory will hold.
    fn current(&self) {
        if self.stats.behind() {
            drop(self.memory());
        }
    }

    /// Marks the capture finished, settles the ring and closes the spill files (at once, or by the writer
    /// that holds one as it lets go). Idempotent.
    pub fn finish(&self) {
        {
            let mut memory = self.memory();
            memory.finish();
            self.stats.publish(&memory);
        }
        for stream in [Stream::Stdout, Stream::Stderr] {
            let index = stream as usize;
            if self.close_spill(stream) {
                continue;
            }
            // A writer holds the lock: it closes the file as it lets go (see `close_pending_spill`). Trying once
            // more after raising the flag covers a writer that let go before the flag was up.
            self.closing[index].store(true, Ordering::SeqCst);
            if self.close_spill(stream) {
                self.closing[index].store(false, Ordering::SeqCst);
            }
        }
    }

    /// Closes the spill file unless another thread holds its lock; true when done.
    fn close_spill(&self, stream: Stream) -> bool {
        let mut spill = match self.spills[stream as usize].try_lock() {
            Ok(spill) => spill,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        spill.finish();
        self.stats.publish_spill(stream, spill.state());
        true
    }

    /// Closes the file a `finish` left to this writer.
    fn close_pending_spill(&self, stream: Stream) {
        let index = stream as usize;
        if !self.closing[index].load(Ordering::SeqCst) {
            return;
        }
        if let Ok(mut spill) = self.spills[index].try_lock() {
            if self.closing[index].swap(false, Ordering::SeqCst) {
                spill.finish();
                self.stats.publish_spill(stream, spill.state());
            }
        }
    }

    pub fn finished(&self) -> bool {
        self.stats.finished()
    }

    /// Sizes and spill state, read without waiting for any lock (but the memory lock, for a copy, while memory is
    /// behind its spill files).
    pub fn info(&self, stream: Stream) -> StreamInfo {
        self.current();
        let tail = self.stats.tail(stream);
        let spill = self.stats.spill(stream);
        let reported = matches!(spill, SpillState::Active | SpillState::Complete);
        StreamInfo {
            total: tail.total,
            retained: tail.retained,
            truncated: tail.truncated,
            spill,
            spill_path: self.targets[stream as usize].clone().filter(|_| reported),
        }
    }

    /// The ring's state, read as [`SharedCapture::info`] is; `None` for a capture without a ring.
    pub fn ring_state(&self) -> Option<RingState> {
        self.current();
        self.has_ring.then(|| self.stats.ring())
    }

    /// Runs `f` on the memory with its lock held, then publishes what changed.
    pub fn with_memory<T>(&self, f: impl FnOnce(&mut Memory) -> T) -> T {
        let mut memory = self.memory();
        let out = f(&mut memory);
        self.stats.publish(&memory);
        out
    }

    /// Runs `f` on the memory with its lock held, changing nothing.
    pub fn read_memory<T>(&self, f: impl FnOnce(&Memory) -> T) -> T {
        f(&self.memory())
    }

    pub fn reader_attached(&self) {
        self.readers.fetch_add(1, Ordering::AcqRel);
    }

    pub fn reader_ended(&self) {
        self.readers.fetch_sub(1, Ordering::AcqRel);
    }

    /// True when every attached pipe reached end-of-file or was abandoned.
    pub fn readers_done(&self) -> bool {
        self.readers.load(Ordering::Acquire) == 0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;
    use crate::ring::RingOptions;

    /// A thread that holds stdout's spill lock (as a writer blocked on a slow disk would) until told to go.
    fn hold_spill(
        capture: &std::sync::Arc<SharedCapture>,
    ) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let (held_tx, held_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let c = capture.clone();
        let holder = std::thread::spawn(move || {
            let _spill = lock(&c.spills[0]);
            held_tx.send(()).unwrap();
            go_rx.recv().unwrap();
        });
        held_rx.recv().unwrap();
        (go_tx, holder)
    }

    #[test]
    fn sizes_state_and_finish_never_wait_for_a_spill_lock() {
        let dir = std::env::temp_dir().join(format!("shellring-shared-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let options = CaptureOptions {
            stdout_cap: 4,
            spill_dir: Some(dir.clone()),
            ring: Some(RingOptions::default()),
            ..Default::default()
        };
        let capture = std::sync::Arc::new(SharedCapture::new(1, &options));
        capture.write(Stream::Stdout, b"0123456789");
        assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Active);
        let (go, holder) = hold_spill(&capture);
        // Each of these would block for good if it took the held lock.
        let (done_tx, done_rx) = mpsc::channel();
        let c = capture.clone();
        std::thread::spawn(move || {
            let info = c.info(Stream::Stdout);
            let ring = c.ring_state().unwrap();
            let tail = c.read_memory(|m| m.tail(Stream::Stdout).window());
            c.finish();
            done_tx.send((info, ring, tail, c.finished())).unwrap();
        });
        let (info, ring, tail, finished) = done_rx
            .recv_timeout(Duration::from_secs(5))
            .expect("no call waited for the spill lock");
        assert_eq!((info.total, info.retained, info.truncated), (10, 4, true));
        assert_eq!(ring.total, 10);
        assert_eq!(tail, b"6789");
        assert!(finished);
        // The holder closes the file as it lets go.
        assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Active);
        go.send(()).unwrap();
        holder.join().unwrap();
        capture.close_pending_spill(Stream::Stdout);
        assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Complete);
        assert_eq!(
            std::fs::read(dir.join("capture-1.stdout.log")).unwrap(),
            b"0123456789"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_writer_that_held_the_lock_through_finish_closes_the_file() {
        let dir = std::env::temp_dir().join(format!("shellring-shared-w-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let options = CaptureOptions {
            stdout_cap: 4,
            spill_dir: Some(dir.clone()),
            ..Default::default()
        };
        let capture = std::sync::Arc::new(SharedCapture::new(2, &options));
        capture.write(Stream::Stdout, b"0123456789");
        let (go, holder) = hold_spill(&capture);
        capture.finish();
        go.send(()).unwrap();
        holder.join().unwrap();
        // The next writer through the lock (here one whose bytes arrive after the finish) closes it.
        assert!(!capture.write_from_pipe(Stream::Stdout, b"late"));
        capture.write(Stream::Stdout, b"!");
        assert_eq!(capture.info(Stream::Stdout).spill, SpillState::Complete);
        assert_eq!(
            std::fs::read(dir.join("capture-2.stdout.log")).unwrap(),
            b"0123456789"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
