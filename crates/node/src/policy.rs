//! The command policy's parser: every simple command of a bash script, as literal words (null where a word
//! is not one), its standard input where a redirection sets it, and the variables the script sets, for the
//! policy stage on the main thread.

use napi_derive::napi;

use crate::guard::{guard, Result};

/// Parses `script`; the result is the JSON text of `shellring_policy::ParsedScript` (see its `to_json`), read
/// with `JSON.parse`: one string crosses the boundary instead of an object per command and word.
#[napi]
pub fn parse_commands(script: String) -> Result<String> {
    guard(|| Ok(shellring_policy::simple_commands(&script).to_json()))
}
