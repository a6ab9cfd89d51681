//! The host's allocator, told to give large freed blocks back to the system at once: a server's resident memory
//! follows what it holds, not the largest burst it has served.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use napi_derive::napi;

/// Blocks of at least this size (a 64 KiB result, a pipe's read buffer) are mapped apart and unmapped when freed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 64 * 1024;

/// Fixes glibc's mmap threshold, which also fixes its trim threshold. Left dynamic, both rise with the largest
/// mapped block ever freed (up to 32 MiB and twice that), so after a burst of large buffers every later one comes
/// from the heap and the freed heap is never trimmed: `shellring serve` kept 53–78 MiB of freed heap resident after
/// 2,000 calls of 64 KiB, 5–10 MiB with the threshold fixed. False where the allocator is not glibc's.
#[napi]
pub fn release_large_blocks() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt changes a setting of the process's allocator and touches no memory of ours.
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}
