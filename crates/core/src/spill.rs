//! The lazy spill file of one stream: memory until the tail cap, then the whole stream on disk.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::IntoRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[cfg(target_os = "linux")]
use crate::relay::Relayed;

/// The most one splice(2) moves into the file. Larger writes make the page cache take larger folios: cheaper where
/// the memory was just freed by other files (through the relay, 1 GiB cost the host 0.28–0.34 s of CPU in 512 KiB
/// splices against 0.32–0.36 s in 256 KiB ones), dearer where a virtual machine that hands free memory back to its
/// host must have it faulted back in. Four streams of 1 GiB into such memory cost 0.71–1.12 s per GiB in 512 KiB
/// splices against 0.67 s in 256 KiB ones (four runs and three), and one stream in 1 MiB splices, written while an
/// earlier file was still cached, 1.2–1.4 s against 0.30–0.36 s.
#[cfg(target_os = "linux")]
const SPLICE_MAX: usize = 256 * 1024;

/// The most a file's blocks are allocated ahead of its writes. Allocated blocks (`fallocate(2)`, the file's size
/// kept) spare ext4 the reservation and extent bookkeeping of each page written into a hole: with the relay
/// (see `relay`), the reader of bench/lib/reader.c spent 0.30–0.34 s of CPU per GiB into files so allocated against
/// 0.40–0.43 s into holes. Ahead by at most what the file holds, so a short spill never claims much more disk
/// than it uses; whatever is still ahead when the file closes is given back.
#[cfg(target_os = "linux")]
const RESERVE_AHEAD: u64 = 16 * 1024 * 1024;

/// The public view of a spill's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpillState {
    /// The stream never outgrew its tail.
    None,
    /// The file holds the whole stream so far and is still open.
    Active,
    /// The file holds the whole stream and was closed cleanly.
    Complete,
    /// A spill was needed but could not be kept (no directory, cap passed, or an I/O error).
    Unavailable,
}

impl SpillState {
    pub fn as_str(self) -> &'static str {
        match self {
            SpillState::None => "none",
            SpillState::Active => "active",
            SpillState::Complete => "complete",
            SpillState::Unavailable => "unavailable",
        }
    }
}

#[derive(Debug)]
enum State {
    None,
    /// `reader` is a second handle on the file, for memory to catch up from (see `behind`); the file's blocks are
    /// allocated up to `reserved`.
    Active {
        path: PathBuf,
        file: File,
        reader: Arc<File>,
        reserved: u64,
    },
    Complete {
        path: PathBuf,
    },
    Unavailable,
}

/// Allocates the file's blocks ahead of a write that takes it from `total` to `end` bytes, never past `cap`, as
/// far ahead as the file holds and at most `RESERVE_AHEAD`. A file system that refuses (no fallocate(2), or a full
/// disk, which the write itself then reports) is marked reserved up to `cap`, so it is never asked again.
#[cfg(target_os = "linux")]
fn reserve(file: &File, reserved: &mut u64, total: u64, end: u64, cap: u64) {
    if end <= *reserved {
        return;
    }
    let from = (*reserved).max(total);
    let to = (end + total.min(RESERVE_AHEAD)).min(cap);
    let (Ok(offset), Ok(len)) = (
        libc::off_t::try_from(from),
        libc::off_t::try_from(to - from),
    ) else {
        *reserved = cap;
        return;
    };
    // SAFETY: fallocate takes an open fd and plain integers, and touches no memory of ours.
    let done =
        unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len) } == 0;
    *reserved = if done { to } else { cap };
}

/// Makes one private (0700) directory; one that exists already is fine.
fn make_dir(dir: &Path) -> std::io::Result<()> {
    match DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// The spill of one stream. It never returns an error: every failure turns it `Unavailable`, because a
/// missing spill file only loses the full copy while the tail keeps working.
#[derive(Debug)]
pub struct Spill {
    state: State,
    dir: Option<PathBuf>,
    file_name: String,
    cap: u64,
}

impl Spill {
    /// A spill that would create `dir/file_name` when the stream outgrows its tail, and gives up past
    /// `cap` bytes.
    pub fn new(dir: Option<PathBuf>, file_name: String, cap: u64) -> Self {
        Spill {
            state: State::None,
            dir,
            file_name,
            cap,
        }
    }

    pub fn state(&self) -> SpillState {
        match self.state {
            State::None => SpillState::None,
            State::Active { .. } => SpillState::Active,
            State::Complete { .. } => SpillState::Complete,
            State::Unavailable => SpillState::Unavailable,
        }
    }

    /// Where the file goes when it starts; `None` without a directory.
    pub fn target(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join(&self.file_name))
    }

    /// The file path, reported only while it holds the whole stream (active or complete).
    pub fn path(&self) -> Option<&Path> {
        match &self.state {
            State::Active { path, .. } | State::Complete { path } => Some(path),
            _ => None,
        }
    }

    /// A handle that reads the file while it is active, kept by whoever holds it even after the file is dropped.
    pub fn reader(&self) -> Option<&Arc<File>> {
        match &self.state {
            State::Active { reader, .. } => Some(reader),
            _ => None,
        }
    }

    /// True when writing `len` more bytes to a stream that holds `total` bytes with a tail of `tail_cap` starts
    /// the file: the caller must then hand [`Spill::write`] the tail's window (every earlier byte).
    pub fn wants_window(&self, total: u64, tail_cap: usize, len: usize) -> bool {
        matches!(self.state, State::None) && total + len as u64 > tail_cap as u64
    }

    /// Takes `data`, the chunk that follows `total` earlier bytes. At the first overflow `window` must hold
    /// every earlier byte (the tail still does then, see [`Spill::wants_window`]); it is ignored otherwise.
    pub fn write(&mut self, total: u64, tail_cap: usize, window: [&[u8]; 2], data: &[u8]) {
        let after = total + data.len() as u64;
        match &mut self.state {
            State::None => {
                if after > tail_cap as u64 {
                    self.start(window, data, after);
                }
            }
            State::Active { file, .. } => {
                // Past the cap the file is dropped without writing, so it never holds a partial chunk.
                if after > self.cap || file.write_all(data).is_err() {
                    self.fail();
                }
            }
            State::Complete { .. } | State::Unavailable => {}
        }
    }

    /// Moves the oldest `len` bytes waiting in `pipe` into the file, which holds the `total` bytes before them,
    /// without copying them through user space (see `relay`). `None`: no file is being written, or no relay pipe
    /// could be made, and the caller reads the bytes instead. Otherwise what was moved: fewer than `len` bytes when
    /// the pipe ran dry, or when the file failed, which is then dropped as [`Spill::write`] drops it.
    #[cfg(target_os = "linux")]
    pub fn splice_in(&mut self, pipe: BorrowedFd<'_>, len: usize, total: u64) -> Option<Relayed> {
        let State::Active { file, reserved, .. } = &mut self.state else {
            return None;
        };
        let end = total + len as u64;
        if end > self.cap {
            self.fail();
            return Some(Relayed::default());
        }
        reserve(file, reserved, total, end, self.cap);
        let relayed = crate::relay::into_file(pipe, file, len, SPLICE_MAX)?;
        if relayed.failed {
            self.fail();
        }
        Some(relayed)
    }

    /// Cuts the file back to its first `len` bytes (bytes moved into it that no result will count).
    pub fn truncate_to(&mut self, len: u64) {
        let State::Active { file, reserved, .. } = &mut self.state else {
            return;
        };
        // Cutting back gives up the blocks allocated past the cut too.
        *reserved = (*reserved).min(len);
        if file.set_len(len).is_err() || file.seek(SeekFrom::Start(len)).is_err() {
            self.fail();
        }
    }

    fn start(&mut self, window: [&[u8]; 2], data: &[u8], after: u64) {
        let Some(dir) = &self.dir else {
            self.state = State::Unavailable;
            return;
        };
        if after > self.cap {
            // The file would be removed at once: never create it.
            self.state = State::Unavailable;
            return;
        }
        let path = dir.join(&self.file_name);
        let open = || {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_CLOEXEC)
                .open(&path)
        };
        let file = match open() {
            // The directory was removed underneath (a command cleaned up after itself): make it again, and the
            // runtime's private root above it should that be gone too; never more than those two levels.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match make_dir(dir) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    match dir.parent().map(make_dir) {
                        Some(Ok(())) => make_dir(dir).and_then(|()| open()),
                        _ => Err(e),
                    }
                }
                Ok(()) => open(),
                Err(e) => Err(e),
            },
            other => other,
        };
        let Ok(mut file) = file else {
            // Not ours (EEXIST) or never created: nothing to remove.
            self.state = State::Unavailable;
            return;
        };
        let Ok(reader) = file.try_clone().map(Arc::new) else {
            drop(file);
            let _ = fs::remove_file(&path);
            self.state = State::Unavailable;
            return;
        };
        let [a, b] = window;
        let ok =
            file.write_all(a).is_ok() && file.write_all(b).is_ok() && file.write_all(data).is_ok();
        self.state = State::Active {
            path,
            file,
            reader,
            reserved: 0,
        };
        if !ok {
            self.fail();
        }
    }

    /// Gives up on the file: closes it and removes it if it can.
    fn fail(&mut self) {
        if let State::Active { path, .. } = std::mem::replace(&mut self.state, State::Unavailable) {
            let _ = fs::remove_file(&path);
        }
    }

    /// Closes the file, checking the result of `close(2)`: on some file systems a deferred write error
    /// only shows there, and a file that may be short must never be reported complete. Idempotent.
    pub fn finish(&mut self) {
        if !matches!(self.state, State::Active { .. }) {
            return;
        }
        let State::Active {
            path,
            mut file,
            reserved,
            ..
        } = std::mem::replace(&mut self.state, State::Unavailable)
        else {
            unreachable!("checked above");
        };
        if reserved > 0 {
            // Gives back the blocks allocated past the end (a truncate to the same size frees them on ext4 and
            // xfs); the file stays whole if this fails, only longer on disk until it is removed.
            if let Ok(len) = file.stream_position() {
                let _ = file.set_len(len);
            }
        }
        // A file unlinked or replaced underneath us no longer holds the stream at `path`.
        let same = match (file.metadata(), fs::symlink_metadata(&path)) {
            (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
            _ => false,
        };
        let fd = file.into_raw_fd();
        // SAFETY: `fd` was just released by `into_raw_fd`, so nothing else owns or closes it.
        let closed = unsafe { libc::close(fd) } == 0;
        if same && closed {
            self.state = State::Complete { path };
        } else if same {
            let _ = fs::remove_file(&path);
        }
    }
}
