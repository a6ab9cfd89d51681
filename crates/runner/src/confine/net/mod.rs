//! Network by name, the namespace's part: in a session sandbox's own network namespace (only loopback), loopback
//! brought up and the proxy's listener made there, then handed to the host over the session's network channel
//! (SCM_RIGHTS). A socket keeps the namespace it was made in whoever holds it, so the host's proxy accepts the
//! sandbox's connections directly: no relay process inside, and no host socket that a command could name.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::wire::plan::PROXY_PORT;

/// The descriptor on which a domains-mode session sandbox receives its network channel from the host.
pub const CHANNEL_FD: RawFd = 4;

/// Brings `lo` up in the current (new) network namespace; needs CAP_NET_ADMIN there, which the namespace's creator
/// holds.
///
/// # Errors
/// The OS error.
pub fn loopback_up() -> std::io::Result<()> {
    let probe = socket(libc::SOCK_DGRAM)?;
    // SAFETY: ifreq is a plain C struct (a name and a union of integers); all-zero bytes are a valid value.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *slot = *byte as libc::c_char;
    }
    request.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    // SAFETY: SIOCSIFFLAGS reads one ifreq, which outlives the call.
    if unsafe {
        libc::ioctl(
            probe.as_raw_fd(),
            libc::SIOCSIFFLAGS as libc::Ioctl,
            &request,
        )
    } != 0
    {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The proxy's listener on the namespace's 127.0.0.1:PROXY_PORT, close-on-exec so no command inherits it.
///
/// # Errors
/// The OS error.
pub fn listener() -> std::io::Result<OwnedFd> {
    let fd = socket(libc::SOCK_STREAM)?;
    let address = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: PROXY_PORT.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(std::net::Ipv4Addr::LOCALHOST).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: bind reads one sockaddr_in of the length given, which outlives the call.
    let bound = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&address as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    // SAFETY: listen takes integers only.
    if bound != 0 || unsafe { libc::listen(fd.as_raw_fd(), 1024) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd)
}

/// Sends `listener` over the channel (fd `CHANNEL_FD`) and closes the channel.
///
/// # Errors
/// The OS error.
pub fn hand_over(listener: &OwnedFd) -> std::io::Result<()> {
    // SAFETY: the host opened CHANNEL_FD for this process in domains mode and nothing else here uses it; owning it
    // closes it once the listener is sent.
    let channel = unsafe { OwnedFd::from_raw_fd(CHANNEL_FD) };
    let fds = [listener.as_raw_fd()];
    let rights = [nix::sys::socket::ControlMessage::ScmRights(&fds)];
    let iov = [std::io::IoSlice::new(b"L")];
    nix::sys::socket::sendmsg::<()>(
        channel.as_raw_fd(),
        &iov,
        &rights,
        nix::sys::socket::MsgFlags::empty(),
        None,
    )
    .map_err(std::io::Error::from)?;
    Ok(())
}

/// Makes the namespace's way out and hands it to the host: loopback up, the listener, sent.
///
/// # Errors
/// A message naming the step.
pub fn open_way_out() -> Result<(), String> {
    loopback_up().map_err(|e| format!("sandbox network loopback: {e}"))?;
    let listener = listener().map_err(|e| format!("sandbox network listener: {e}"))?;
    hand_over(&listener).map_err(|e| format!("sandbox network hand-over: {e}"))
}

fn socket(kind: i32) -> std::io::Result<OwnedFd> {
    // SAFETY: socket takes integers only; a descriptor it returns is ours alone.
    let fd = unsafe { libc::socket(libc::AF_INET, kind | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
