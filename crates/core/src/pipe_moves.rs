//! Moving bytes out of a pipe without reading them into memory: splice(2) to a file or to /dev/null. A capture
//! keeps only a stream's newest bytes in memory, so of a full pipe only those need a copy into user space.

use std::os::fd::{AsRawFd, BorrowedFd};

/// How many bytes the pipe holds now.
pub fn waiting(pipe: BorrowedFd<'_>) -> usize {
    let mut held: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int into `held`; the fd is borrowed, so it stays open for the call.
    if unsafe { libc::ioctl(pipe.as_raw_fd(), libc::FIONREAD, &mut held) } != 0 {
        return 0;
    }
    held.max(0) as usize
}

/// One splice(2) of at most `len` bytes from `pipe` to `to` (at `to`'s file position): the bytes moved, or the
/// OS error. Never blocks on the pipe.
pub fn splice(pipe: BorrowedFd<'_>, to: BorrowedFd<'_>, len: usize) -> std::io::Result<usize> {
    loop {
        // SAFETY: both fds are borrowed and open; null offsets make the kernel use (and move) the file positions.
        let n = unsafe {
            libc::splice(
                pipe.as_raw_fd(),
                std::ptr::null_mut(),
                to.as_raw_fd(),
                std::ptr::null_mut(),
                len,
                libc::SPLICE_F_NONBLOCK,
            )
        };
        if n >= 0 {
            return Ok(n as usize);
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EINTR) {
            return Err(error);
        }
    }
}

/// Drops the oldest `len` bytes of `pipe` (which holds at least that many): spliced to `null`, or, should that
/// fail, read into `scratch` and forgotten. Returns the bytes dropped (fewer only when the pipe failed).
pub fn drop_oldest(
    pipe: BorrowedFd<'_>,
    null: BorrowedFd<'_>,
    len: usize,
    scratch: &mut [u8],
) -> usize {
    let mut dropped = 0;
    let room = scratch.len();
    while dropped < len {
        let n = match splice(pipe, null, len - dropped) {
            Ok(n) if n > 0 => n,
            _ => read(pipe, &mut scratch[..(len - dropped).min(room)]),
        };
        if n == 0 {
            break;
        }
        dropped += n;
    }
    dropped
}

/// Reads until `buf` is full or the pipe has nothing more now; returns the bytes read.
pub fn read_full(pipe: BorrowedFd<'_>, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        let n = read(pipe, &mut buf[got..]);
        if n == 0 {
            break;
        }
        got += n;
    }
    got
}

/// Reads the `len` bytes a pipe of ours holds (fewer only if it holds fewer), emptying it of them.
pub fn read_held(pipe: BorrowedFd<'_>, len: usize) -> Vec<u8> {
    let mut bytes = vec![0; len];
    let got = read_full(pipe, &mut bytes);
    bytes.truncate(got);
    bytes
}

/// One read(2); 0 at end-of-file, on EAGAIN or on an error.
fn read(pipe: BorrowedFd<'_>, buf: &mut [u8]) -> usize {
    loop {
        // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes; the fd is borrowed and open.
        let n = unsafe { libc::read(pipe.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return n as usize;
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{pipe_with, unlinked_file};
    use std::io::{Read, Seek};
    use std::os::fd::AsFd;

    #[test]
    fn splices_the_oldest_bytes_to_a_file_and_reads_the_newest() {
        let (r, _w) = pipe_with(b"0123456789");
        assert_eq!(waiting(r.as_fd()), 10);
        let mut file = unlinked_file(false);
        assert_eq!(splice(r.as_fd(), file.as_fd(), 6).unwrap(), 6);
        let mut buf = [0u8; 8];
        assert_eq!(read_full(r.as_fd(), &mut buf), 4);
        assert_eq!(&buf[..4], b"6789");
        let mut kept = Vec::new();
        file.rewind().unwrap();
        file.read_to_end(&mut kept).unwrap();
        assert_eq!(kept, b"012345");
    }

    #[test]
    fn drops_exactly_the_oldest_bytes() {
        let (r, _w) = pipe_with(b"0123456789");
        let null = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .unwrap();
        let mut scratch = [0u8; 4];
        assert_eq!(drop_oldest(r.as_fd(), null.as_fd(), 7, &mut scratch), 7);
        let mut buf = [0u8; 8];
        assert_eq!(read_full(r.as_fd(), &mut buf), 3);
        assert_eq!(&buf[..3], b"789");
        // A target splice refuses (a pipe's own read end): the bytes are read and forgotten instead.
        let (r, w) = pipe_with(b"abcdef");
        assert_eq!(drop_oldest(r.as_fd(), r.as_fd(), 5, &mut scratch), 5);
        assert_eq!(read_full(r.as_fd(), &mut buf), 1);
        assert_eq!(&buf[..1], b"f");
        drop(w);
    }
}
