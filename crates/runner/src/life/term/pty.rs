//! The pseudo-terminal a terminal job runs on: opened by the runner (inside the session sandbox when there is one, so
//! in that sandbox's own devpts), both ends close-on-exec; the command gets the user side as its stdin, stdout,
//! stderr and controlling terminal, the runner keeps the other.

use std::os::fd::OwnedFd;

use rustix::pty::{ioctl_tiocgptpeer, openpt, unlockpt, OpenptFlags};
use rustix::termios::{tcsetwinsize, Winsize};

use crate::wire::term::Size;

/// The runner's side and the command's side of a new pseudo-terminal of `size`.
///
/// # Errors
/// The OS error of opening /dev/ptmx, unlocking it, opening its peer or setting its size.
pub fn open(size: Size) -> rustix::io::Result<(OwnedFd, OwnedFd)> {
    let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
    let master = openpt(flags)?;
    unlockpt(&master)?;
    // Through the master, not by its name: the peer is the one just made whatever /dev/pts shows here.
    let slave = ioctl_tiocgptpeer(&master, flags)?;
    resize(&master, size)?;
    Ok((master, slave))
}

/// Gives the terminal a new size; the kernel sends its foreground process group SIGWINCH.
///
/// # Errors
/// The OS error of TIOCSWINSZ.
pub fn resize(master: &OwnedFd, size: Size) -> rustix::io::Result<()> {
    tcsetwinsize(
        master,
        Winsize {
            ws_row: size.rows,
            ws_col: size.cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::termios::tcgetwinsize;
    use std::os::fd::AsRawFd;

    #[test]
    fn both_ends_are_close_on_exec_and_sized() {
        let (master, slave) = open(Size {
            cols: 100,
            rows: 30,
        })
        .unwrap();
        for fd in [&master, &slave] {
            // SAFETY: F_GETFD on a descriptor this test owns.
            let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFD) };
            assert_eq!(flags & libc::FD_CLOEXEC, libc::FD_CLOEXEC);
        }
        let size = tcgetwinsize(&slave).unwrap();
        assert_eq!((size.ws_col, size.ws_row), (100, 30));
        resize(&master, Size { cols: 40, rows: 10 }).unwrap();
        assert_eq!(tcgetwinsize(&slave).unwrap().ws_col, 40);
    }
}
