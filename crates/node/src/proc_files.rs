//! Small /proc files read whole in one call, for the supervisor workers' waiting looks, sweeps and stopped-runner
//! watches: a look reads a few files of each process of a command, and through `fs` each costs four calls into
//! Node (open, two reads, close), several times the kernel's own work.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use std::cell::RefCell;
use std::io::Read;

use napi::bindgen_prelude::Either;
use napi_derive::napi;

use crate::guard::{guard, Result};

thread_local! {
    /// One buffer per thread, kept for the next file: a worker reads thousands of them a second.
    static SCRATCH: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(4096));
}

/// The whole file as latin1 text (each byte one character), or the errno that stopped its reading.
#[napi]
pub fn read_proc_text(path: String) -> Result<Either<String, i32>> {
    guard(|| {
        Ok(SCRATCH.with_borrow_mut(|scratch| {
            scratch.clear();
            // A short read is not the end of a /proc file (seq files hand out a page at a time): read_to_end reads
            // until 0.
            match std::fs::File::open(&path).and_then(|mut file| file.read_to_end(scratch)) {
                Ok(_) => Either::A(latin1(scratch)),
                Err(e) => Either::B(e.raw_os_error().unwrap_or(libc::EIO)),
            }
        }))
    })
}

fn latin1(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if bytes.is_ascii() => text.to_owned(),
        _ => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::latin1;

    #[test]
    fn bytes_past_ascii_are_latin1_characters() {
        assert_eq!(latin1(b"12 (sleep) S"), "12 (sleep) S");
        assert_eq!(latin1(&[0x61, 0xe9, 0xff]), "a\u{e9}\u{ff}");
    }
}
