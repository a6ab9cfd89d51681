//! Dropping every capability (bounding, ambient, effective, permitted, inheritable) and setting no_new_privs,
//! so a command started by a root server is not root in any sense that matters. Runs between fork and exec.

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// Comfortably above the highest capability any kernel defines today; dropping an unknown one fails harmlessly.
const CAP_MAX: libc::c_int = 63;

/// Empties the bounding set: what an exec of this process or of its forks may ever gain. A session sandbox's server
/// does it once, so that its runners' commands find nothing left to drop (each drop commits a new set of
/// credentials: 41 of them cost a command about 60 µs). Returns 0 or the errno. Only async-signal-safe calls.
pub fn drop_bounding() -> i32 {
    // SAFETY: prctl with plain integer arguments.
    unsafe {
        for cap in 0..=CAP_MAX {
            // EINVAL marks the end of the kernel's capabilities.
            match libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) {
                0 => continue,
                1 => {}
                _ => break,
            }
            // EPERM means we hold no CAP_SETPCAP, so there is nothing to drop from a bounding set we could never
            // regain anyway.
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                let errno = *libc::__errno_location();
                if errno == libc::EPERM {
                    break;
                }
                return errno;
            }
        }
    }
    0
}

/// Returns 0 or the errno of the step that failed. Only async-signal-safe calls.
pub fn drop_all() -> i32 {
    let errno = drop_bounding();
    if errno != 0 {
        return errno;
    }
    // SAFETY: prctl/syscall with plain integer or local-struct arguments.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let mut header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(
            libc::SYS_capset,
            &mut header as *mut CapHeader,
            data.as_ptr(),
        ) != 0
        {
            return *libc::__errno_location();
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return *libc::__errno_location();
        }
    }
    0
}
