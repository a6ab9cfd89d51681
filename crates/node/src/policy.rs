//! The command policy's parser: every simple command of a bash script, as literal words (null where a word
//! is not one), for the policy stage on the main thread.

use napi_derive::napi;

use crate::guard::{guard, Result};

#[napi(object)]
pub struct NativeSimpleCommand {
    pub words: Vec<Option<String>>,
    pub text: String,
}

#[napi(object)]
pub struct NativeParsedScript {
    pub commands: Vec<NativeSimpleCommand>,
    pub error: bool,
    pub functions: Vec<String>,
}

/// Parses `script` with tree-sitter-bash; `error` is true when some part of it could not be parsed.
#[napi]
pub fn parse_commands(script: String) -> Result<NativeParsedScript> {
    guard(|| {
        let parsed = shellring_policy::simple_commands(&script);
        Ok(NativeParsedScript {
            commands: parsed
                .commands
                .into_iter()
                .map(|c| NativeSimpleCommand {
                    words: c.words,
                    text: c.text,
                })
                .collect(),
            error: parsed.error,
            functions: parsed.functions,
        })
    })
}
