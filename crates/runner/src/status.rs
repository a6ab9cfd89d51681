//! The out-of-band status channel on fd 3: what the runner reports and how it learns the supervisor is gone.

use std::os::fd::RawFd;

pub struct Status {
    fd: RawFd,
}

impl Status {
    /// Takes fd 3 when it is open, marking it close-on-exec so the command never inherits it.
    pub fn from_fd(fd: RawFd) -> Option<Status> {
        // SAFETY: fcntl on an integer fd has no memory effects; a closed fd yields -1.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if flags < 0 {
            return None;
        }
        unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) };
        Some(Status { fd })
    }

    pub fn fd(&self) -> RawFd {
        self.fd
    }

    /// Writes one line; a vanished supervisor is not an error here (the lifeline check handles it).
    pub fn line(&self, text: &str) {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(b'\n');
        let mut written = 0;
        while written < bytes.len() {
            // SAFETY: the pointer and length describe a live slice.
            let n = unsafe {
                libc::send(
                    self.fd,
                    bytes[written..].as_ptr().cast(),
                    bytes.len() - written,
                    libc::MSG_NOSIGNAL,
                )
            };
            let n = if n < 0 && errno() == libc::ENOTSOCK {
                // A plain pipe on fd 3 (a caller other than Node) works too.
                unsafe { libc::write(self.fd, bytes[written..].as_ptr().cast(), bytes.len() - written) }
            } else {
                n
            };
            if n < 0 {
                if errno() == libc::EINTR {
                    continue;
                }
                return;
            }
            written += n as usize;
        }
    }

    /// Reads and discards what the supervisor sent; returns false once the supervisor is gone (EOF or error).
    pub fn alive(&self) -> bool {
        let mut buf = [0u8; 256];
        loop {
            // SAFETY: buf is a live, writable buffer of the given length.
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                return true;
            }
            if n < 0 && errno() == libc::EINTR {
                continue;
            }
            return n < 0 && errno() == libc::EAGAIN;
        }
    }
}

pub fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}
