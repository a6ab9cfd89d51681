//! The per-chunk calls (`write`, `ringAppend`, `ringReadInto`) as plain N-API callbacks. The wrapper napi-rs
//! generates around a `#[napi]` function (borrow-tracking scopes, argument validation) costs about as much as
//! the work of a small call, and these run once per chunk. Arguments, errors and the panic guard are the same
//! as for the `#[napi]` functions.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::{sys, Either, JsValue, Object};
use napi::{Env, JsError};
use napi_derive::napi;
use shellring_core::registry;

use crate::guard::{core_error, error, guard, id, kind, stream, Result, INVALID_ARGUMENT, NAPI};
use crate::tables::{self, READ_HEADER};

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

fn status(code: sys::napi_status, what: &str) -> Result<()> {
    if code == sys::Status::napi_ok {
        return Ok(());
    }
    Err(error(NAPI, format!("{what} failed (N-API status {code})")))
}

fn invalid(name: &str, expected: &str) -> napi::Error<&'static str> {
    error(
        INVALID_ARGUMENT,
        format!("invalid {name}: expected {expected}"),
    )
}

/// The call's first `N` arguments; missing ones are `undefined`, which the conversions below reject.
///
/// # Safety
/// `env` and `info` must be the ones N-API passed to the callback that is running.
unsafe fn args<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Result<[sys::napi_value; N]> {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    // SAFETY: `env` and `info` are the ones N-API passed to this callback; `argv` has room for `argc` values.
    let code = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    status(code, "reading the arguments")?;
    Ok(argv)
}

/// # Safety
/// `env` must be the running callback's env and `value` a value of its scope.
unsafe fn number(env: sys::napi_env, value: sys::napi_value, name: &str) -> Result<f64> {
    let mut out = 0.0;
    // SAFETY: `env` is this call's env, `value` one of its arguments, `out` a valid place for the result.
    if unsafe { sys::napi_get_value_double(env, value, &mut out) } != sys::Status::napi_ok {
        return Err(invalid(name, "a number"));
    }
    Ok(out)
}

/// A number converted the way N-API converts to u32 (modulo 2^32, NaN and infinities to 0), as napi-rs does.
unsafe fn uint32(env: sys::napi_env, value: sys::napi_value, name: &str) -> Result<u32> {
    let mut out = 0;
    // SAFETY: as in `number`.
    if unsafe { sys::napi_get_value_uint32(env, value, &mut out) } != sys::Status::napi_ok {
        return Err(invalid(name, "a number"));
    }
    Ok(out)
}

unsafe fn boolean(env: sys::napi_env, value: sys::napi_value, name: &str) -> Result<bool> {
    let mut out = false;
    // SAFETY: as in `number`.
    if unsafe { sys::napi_get_value_bool(env, value, &mut out) } != sys::Status::napi_ok {
        return Err(invalid(name, "a boolean"));
    }
    Ok(out)
}

/// The bytes of any ArrayBufferView, in place.
///
/// # Safety
///
/// The slice is valid for the current call only, and JS must not run while it lives.
unsafe fn bytes<'a>(
    env: sys::napi_env,
    value: sys::napi_value,
    name: &str,
) -> Result<&'a mut [u8]> {
    let mut data = ptr::null_mut();
    let mut len = 0;
    // SAFETY: as in `number`; `data` and `len` are valid places for the buffer's address and length.
    if unsafe { sys::napi_get_buffer_info(env, value, &mut data, &mut len) } != sys::Status::napi_ok
    {
        return Err(invalid(name, "a Buffer or Uint8Array"));
    }
    if len == 0 || data.is_null() {
        return Ok(&mut []);
    }
    // SAFETY: N-API reports `len` bytes at `data`, kept alive by the argument for the whole call.
    Ok(unsafe { std::slice::from_raw_parts_mut(data.cast(), len) })
}

/// The numbers of a Float64Array, in place (same safety rules as [`bytes`]).
unsafe fn numbers<'a>(
    env: sys::napi_env,
    value: sys::napi_value,
    name: &str,
) -> Result<&'a mut [f64]> {
    let mut kind = 0;
    let mut len = 0;
    let mut data = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    let mut offset = 0;
    // SAFETY: `env` is this call's env, `value` one of its arguments; every out-pointer is a valid local.
    let code = unsafe {
        sys::napi_get_typedarray_info(
            env,
            value,
            &mut kind,
            &mut len,
            &mut data,
            &mut buffer,
            &mut offset,
        )
    };
    if code != sys::Status::napi_ok || kind != sys::TypedarrayType::float64_array {
        return Err(invalid(name, "a Float64Array"));
    }
    if len == 0 || data.is_null() {
        return Ok(&mut []);
    }
    // SAFETY: a Float64Array's data is 8-byte aligned and holds `len` numbers.
    Ok(unsafe { std::slice::from_raw_parts_mut(data.cast(), len) })
}

/// A chunk kind: a number, or a string for the name.
unsafe fn kind_arg(env: sys::napi_env, value: sys::napi_value) -> Result<Either<u32, String>> {
    let mut ty = 0;
    status(
        // SAFETY: `env` is this call's env, `value` one of its arguments, `ty` a valid place for the type.
        unsafe { sys::napi_typeof(env, value, &mut ty) },
        "napi_typeof",
    )?;
    if ty == sys::ValueType::napi_number {
        // SAFETY: `value` is a number (checked just above) of this call's env.
        return Ok(Either::A(unsafe { uint32(env, value, "chunk kind") }?));
    }
    if ty != sys::ValueType::napi_string {
        return Err(invalid("chunk kind", "a number or a string"));
    }
    let mut len = 0;
    // SAFETY: a null buffer of size 0 asks only for the length, written to `len`.
    let code = unsafe { sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len) };
    status(code, "reading the chunk kind")?;
    let mut text = vec![0u8; len + 1];
    // SAFETY: `text` holds `len + 1` bytes, room for the string and its NUL.
    let code = unsafe {
        sys::napi_get_value_string_utf8(env, value, text.as_mut_ptr().cast(), len + 1, &mut len)
    };
    status(code, "reading the chunk kind")?;
    text.truncate(len);
    Ok(Either::B(String::from_utf8_lossy(&text).into_owned()))
}

/// # Safety
/// `env` must be the running callback's env.
unsafe fn undefined(env: sys::napi_env) -> Result<sys::napi_value> {
    let mut out = ptr::null_mut();
    status(
        // SAFETY: `env` is this call's env; `out` a valid place for the value.
        unsafe { sys::napi_get_undefined(env, &mut out) },
        "napi_get_undefined",
    )?;
    Ok(out)
}

unsafe fn js_bool(env: sys::napi_env, value: bool) -> Result<sys::napi_value> {
    let mut out = ptr::null_mut();
    status(
        // SAFETY: as in `undefined`.
        unsafe { sys::napi_get_boolean(env, value, &mut out) },
        "napi_get_boolean",
    )?;
    Ok(out)
}

/// Hands a call's result to JS, or throws its error (with its `code`) and returns nothing.
unsafe fn respond(env: sys::napi_env, result: Result<sys::napi_value>) -> sys::napi_value {
    match result {
        Ok(value) => value,
        Err(e) => {
            // SAFETY: `env` is this call's env, and no exception is pending (each call throws at most once).
            unsafe { JsError::from(e).throw_into(env) };
            ptr::null_mut()
        }
    }
}

/// `write(capture, stream, data)`: see `lib.rs`.
unsafe extern "C" fn write(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: `env` and `info` come from N-API for this call; the argument slices live no longer than it.
    let result = guard(|| unsafe {
        let [capture, stream_id, data] = args::<3>(env, info)?;
        let capture = number(env, capture, "capture")?;
        let stream_id = uint32(env, stream_id, "stream")?;
        let data = bytes(env, data, "data")?;
        registry::write(id(capture)?, stream(stream_id)?, data).map_err(core_error)?;
        undefined(env)
    });
    // SAFETY: `env` is this call's env.
    unsafe { respond(env, result) }
}

/// `ringAppend(capture, kind, data, gap)`: `kind` is 0 (stdout), 1 (stderr), 2 (log) or the kind's name.
unsafe extern "C" fn ring_append(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as in `write`.
    let result = guard(|| unsafe {
        let [capture, chunk_kind, data, gap] = args::<4>(env, info)?;
        let capture = number(env, capture, "capture")?;
        let chunk_kind = kind_arg(env, chunk_kind)?;
        let data = bytes(env, data, "data")?;
        let gap = boolean(env, gap, "gap")?;
        registry::ring_append(id(capture)?, kind(&chunk_kind)?, data, gap).map_err(core_error)?;
        undefined(env)
    });
    // SAFETY: `env` is this call's env.
    unsafe { respond(env, result) }
}

/// `ringReadInto(capture, buffer, table)`: a consumer read into `buffer` (its length bounds the read), copied
/// straight from the ring's chunks, filling the read table (see `tables`). False, with nothing read, when the
/// table is too short for the segments.
unsafe extern "C" fn ring_read_into(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as in `write`; `buffer` and `table` are distinct JS objects, so the two slices never alias.
    let result = guard(|| unsafe {
        let [capture, buffer, table] = args::<3>(env, info)?;
        let capture = number(env, capture, "capture")?;
        let buffer = bytes(env, buffer, "buffer")?;
        let table = numbers(env, table, "table")?;
        let id = id(capture)?;
        tables::check(table, READ_HEADER)?;
        let read = registry::ring_read_fitting_with(id, buffer.len(), |view| {
            if !tables::write_read(table, view) {
                return Err(());
            }
            view.copy_to(buffer);
            Ok(())
        })
        .map_err(core_error)?;
        js_bool(env, read.is_ok())
    });
    // SAFETY: `env` is this call's env.
    unsafe { respond(env, result) }
}

const CALLS: [(&CStr, Callback); 3] = [
    (c"write", write),
    (c"ringAppend", ring_append),
    (c"ringReadInto", ring_read_into),
];

/// Adds the calls above to the addon's exports (for each env: the main thread and every worker).
#[napi(module_exports)]
pub fn register_fast_calls(exports: Object, env: Env) -> napi::Result<()> {
    let exports = exports.value().value;
    for (name, callback) in CALLS {
        let mut function = ptr::null_mut();
        // SAFETY: `env` is the env being initialized, `name` a NUL-terminated string of the given length.
        let code = unsafe {
            sys::napi_create_function(
                env.raw(),
                name.as_ptr(),
                name.count_bytes() as isize,
                Some(callback),
                ptr::null_mut(),
                &mut function,
            )
        };
        napi::check_status!(code, "cannot create {:?}", name)?;
        // SAFETY: as above; `exports` is the module's exports object.
        let code =
            unsafe { sys::napi_set_named_property(env.raw(), exports, name.as_ptr(), function) };
        napi::check_status!(code, "cannot export {:?}", name)?;
    }
    Ok(())
}
