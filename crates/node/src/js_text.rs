//! Text handed to JS as a string. A long ASCII text becomes an external string, whose characters stay in memory
//! this module owns until the collector lets the string go: V8 copies an ordinary string each time a young
//! collection finds it alive, and hundreds of calls ending together each hold a tail of 64 KB while their results
//! travel, which made those collections stall the event loop. Other text is decoded by V8, exactly as
//! `Buffer.prototype.toString('utf8')` decodes it.

use std::ffi::{c_char, c_void};
use std::ptr;
use std::sync::OnceLock;

use napi::bindgen_prelude::sys;
use napi::Env;

use crate::guard::{error, Result, NAPI};
use crate::js_buffer::JsValue;

/// Shorter text is copied by V8 anyway, and costs a collection little.
const EXTERNAL_FROM: usize = 4096;

type CreateExternalLatin1 = unsafe extern "C" fn(
    sys::napi_env,
    *mut c_char,
    isize,
    sys::napi_finalize,
    *mut c_void,
    *mut sys::napi_value,
    *mut bool,
) -> sys::napi_status;

/// Node's `node_api_create_external_string_latin1` (Node 20.4 and later), looked up once: a Node without it gets
/// ordinary strings.
fn create_external_latin1() -> Option<CreateExternalLatin1> {
    static FUNCTION: OnceLock<Option<CreateExternalLatin1>> = OnceLock::new();
    *FUNCTION.get_or_init(|| {
        // SAFETY: dlsym only looks a name up among the symbols the process exports; the name is a C string literal.
        let found = unsafe {
            libc::dlsym(
                libc::RTLD_DEFAULT,
                c"node_api_create_external_string_latin1".as_ptr(),
            )
        };
        // SAFETY: Node exports this symbol as a function of exactly this signature (node_api.h).
        (!found.is_null())
            .then(|| unsafe { std::mem::transmute::<*mut c_void, CreateExternalLatin1>(found) })
    })
}

/// Tells V8 how much memory its strings hold outside its heap, which it weighs in deciding when to collect: the
/// header of an external string is a few bytes, and 64 KB tails would otherwise pile up unseen.
fn held_outside(env: sys::napi_env, change: i64) {
    let mut total = 0;
    // SAFETY: `env` is a live env (the callers check); `total` is a valid out-pointer.
    unsafe { sys::napi_adjust_external_memory(env, change, &mut total) };
}

/// Frees the characters of an external string once V8 no longer needs them (or at once, when it copied them).
unsafe extern "C" fn release(env: sys::napi_env, data: *mut c_void, hint: *mut c_void) {
    let len = hint as usize;
    // SAFETY: `data` and `hint` are the pointer and length of the boxed slice `string` leaked to V8, released once.
    drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(data.cast::<u8>(), len)) });
    // A null env: the environment is going away, and its heap with it.
    if !env.is_null() {
        held_outside(env, -(len as i64));
    }
}

/// `bytes` as a string: what `Buffer.prototype.toString('utf8')` would give.
///
/// # Errors
///
/// `SHELLRING_NAPI` when Node cannot create the string.
pub fn string(env: &Env, bytes: Vec<u8>) -> Result<JsValue> {
    if bytes.len() >= EXTERNAL_FROM && bytes.is_ascii() {
        if let Some(create) = create_external_latin1() {
            // ASCII is Latin-1, so the bytes are the characters.
            let len = bytes.len();
            let data = Box::into_raw(bytes.into_boxed_slice()).cast::<u8>();
            let (mut value, mut copied) = (ptr::null_mut(), false);
            // Counted before: should V8 copy, `release` runs inside the call and takes it back.
            held_outside(env.raw(), len as i64);
            // SAFETY: `env` is the running call's; `data` holds `len` bytes that V8 may keep until it calls `release`
            // with them (at once when it copies); both out-pointers are valid.
            let status = unsafe {
                create(
                    env.raw(),
                    data.cast(),
                    len as isize,
                    Some(release),
                    len as *mut c_void,
                    &mut value,
                    &mut copied,
                )
            };
            if status == sys::Status::napi_ok {
                return Ok(JsValue::from_raw(value));
            }
            // Refused: `release` was never called, so the bytes are still ours, and go the ordinary way.
            held_outside(env.raw(), -(len as i64));
            // SAFETY: `data` and `len` are the boxed slice leaked above, which nothing else holds.
            let bytes = unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(data, len)) };
            return utf8(env, &bytes);
        }
    }
    utf8(env, &bytes)
}

fn utf8(env: &Env, bytes: &[u8]) -> Result<JsValue> {
    let mut value = ptr::null_mut();
    // SAFETY: `env` is the running call's; `bytes` is live for the call, which copies it; `value` is valid.
    let status = unsafe {
        sys::napi_create_string_utf8(
            env.raw(),
            bytes.as_ptr().cast(),
            bytes.len() as isize,
            &mut value,
        )
    };
    if status != sys::Status::napi_ok {
        return Err(error(
            NAPI,
            format!(
                "cannot create a string of {} bytes (N-API status {status})",
                bytes.len()
            ),
        ));
    }
    Ok(JsValue::from_raw(value))
}
