//! Sockets for the fork server: a socket pair, and handing descriptors over one (SCM_RIGHTS), which Node's own
//! sockets cannot do.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::guard::{error, guard, Result};

/// A connected unix socket pair, both ends close-on-exec: `packets` for message boundaries (the fork server's
/// requests), else a byte stream (a command's status socket). Returns `[mine, theirs]`; `mine` is non-blocking.
#[napi]
pub fn socketpair(packets: bool) -> Result<Vec<i32>> {
    guard(|| {
        let kind = if packets {
            libc::SOCK_SEQPACKET
        } else {
            libc::SOCK_STREAM
        };
        let mut fds = [0; 2];
        // SAFETY: socketpair writes two fds into the array.
        if unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                kind | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        } != 0
        {
            return Err(error("SHELLRING_IO", std::io::Error::last_os_error()));
        }
        // SAFETY: fcntl on a descriptor we just created.
        unsafe {
            libc::fcntl(
                fds[0],
                libc::F_SETFL,
                libc::fcntl(fds[0], libc::F_GETFL) | libc::O_NONBLOCK,
            )
        };
        Ok(vec![fds[0], fds[1]])
    })
}

/// Sends `payload` (one byte when absent) with `fds` attached over the socket (non-blocking). Returns 0 once sent,
/// else the errno (EAGAIN: the peer's queue is full, try again; EPIPE/ECONNRESET: the peer is gone). The caller
/// keeps its fds.
#[napi]
pub fn send_fds(socket: i32, fds: Vec<i32>, payload: Option<Buffer>) -> Result<i32> {
    guard(|| {
        let byte = [1u8];
        let data: &[u8] = payload
            .as_deref()
            .filter(|p| !p.is_empty())
            .unwrap_or(&byte);
        let mut iov = libc::iovec {
            iov_base: data.as_ptr() as *mut libc::c_void,
            iov_len: data.len(),
        };
        let data_len = std::mem::size_of_val(fds.as_slice());
        // SAFETY: CMSG_SPACE/CMSG_LEN only compute sizes.
        let (space, len) = unsafe {
            (
                libc::CMSG_SPACE(data_len as u32) as usize,
                libc::CMSG_LEN(data_len as u32),
            )
        };
        // u64 elements keep the control buffer aligned for cmsghdr.
        let mut control = vec![0u64; space.div_ceil(8)];
        // SAFETY: a zeroed msghdr is valid; every pointer below refers to a live local for the duration of sendmsg.
        let sent = unsafe {
            let mut message: libc::msghdr = std::mem::zeroed();
            message.msg_iov = &mut iov;
            message.msg_iovlen = 1;
            message.msg_control = control.as_mut_ptr().cast();
            // `as _`: socklen_t on musl, size_t on glibc.
            message.msg_controllen = space as _;
            let header = libc::CMSG_FIRSTHDR(&message);
            (*header).cmsg_level = libc::SOL_SOCKET;
            (*header).cmsg_type = libc::SCM_RIGHTS;
            (*header).cmsg_len = len as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr(),
                libc::CMSG_DATA(header).cast::<i32>(),
                fds.len(),
            );
            libc::sendmsg(socket, &message, libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT)
        };
        Ok(if sent < 0 {
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        } else {
            0
        })
    })
}
