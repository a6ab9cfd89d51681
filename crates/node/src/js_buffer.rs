//! Node Buffers whose memory V8 owns, filled in place: bytes handed to JS never sit in Rust memory that
//! only a finalizer (run from the event loop after a collection) would give back.

use std::ptr;

use napi::bindgen_prelude::{sys, ToNapiValue};
use napi::Env;

use crate::guard::{error, Result, NAPI};

/// A value created by this module, returned to JS as it is.
pub struct JsValue(sys::napi_value);

impl JsValue {
    /// The raw handle of a value created in the current call's scope.
    pub fn of<'a>(value: &impl napi::JsValue<'a>) -> Self {
        JsValue(value.raw())
    }

    /// A raw handle N-API just gave for the current call's scope.
    pub fn from_raw(value: sys::napi_value) -> Self {
        JsValue(value)
    }
}

impl ToNapiValue for JsValue {
    /// # Safety
    /// The handle is returned as it was taken, within the scope of the call that created it (see `of`).
    unsafe fn to_napi_value(_env: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        Ok(value.0)
    }
}

/// Appends bytes to a Buffer being filled; the memory may start out uninitialized, so it is only ever
/// written through the raw pointer, never read or borrowed as a slice.
pub struct Filler {
    data: *mut u8,
    len: usize,
    at: usize,
}

impl Filler {
    /// # Panics
    ///
    /// When the bytes would run past the end of the Buffer.
    pub fn push(&mut self, bytes: &[u8]) {
        assert!(
            bytes.len() <= self.len - self.at,
            "a Buffer fill ran past its length"
        );
        if bytes.is_empty() {
            return;
        }
        // SAFETY: `data` points to `len` writable bytes owned by the new Buffer (checked above), and
        // `bytes` is Rust memory, so the two never overlap.
        unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), self.data.add(self.at), bytes.len()) };
        self.at += bytes.len();
    }
}

/// Creates a Buffer of `len` bytes in memory V8 owns and lets `fill` write them in order.
///
/// # Errors
///
/// `SHELLRING_NAPI` when Node cannot create the Buffer.
///
/// # Panics
///
/// When `fill` writes fewer or more than `len` bytes.
pub fn filled(env: &Env, len: usize, fill: impl FnOnce(&mut Filler)) -> Result<JsValue> {
    let mut data = ptr::null_mut();
    let mut value = ptr::null_mut();
    // SAFETY: `env` is the env of the running call and both out-pointers are valid.
    let status = unsafe { sys::napi_create_buffer(env.raw(), len, &mut data, &mut value) };
    if status != sys::Status::napi_ok || (len > 0 && data.is_null()) {
        return Err(error(
            NAPI,
            format!("cannot create a Buffer of {len} bytes (N-API status {status})"),
        ));
    }
    let mut filler = Filler {
        data: data.cast(),
        len,
        at: 0,
    };
    fill(&mut filler);
    assert_eq!(filler.at, len, "a Buffer fill left bytes unwritten");
    Ok(JsValue(value))
}
