//! A fresh, empty session keyring for each confined command, so the keys of the session that started the host are
//! not its to possess (the keyring calls themselves are refused by the command filter, see `seccomp`).

const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

/// Joins a new anonymous session keyring. Best effort: a user at their key quota keeps the inherited one, which the
/// seccomp filter still keeps out of reach. Async-signal-safe.
pub fn fresh() {
    // SAFETY: keyctl with a NULL name makes and joins an anonymous keyring; no memory is passed.
    unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_JOIN_SESSION_KEYRING,
            std::ptr::null::<libc::c_char>(),
        )
    };
}
