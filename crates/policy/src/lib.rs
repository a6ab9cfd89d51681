//! shellring-policy: parses a bash script with tree-sitter-bash and lists every simple command it can run,
//! wherever it stands (lists, pipelines, subshells, groups, `$( )`, backticks, process substitution,
//! compound-command and function bodies, heredoc bodies, redirection targets, assignment values).
//!
//! A word is reported as its literal value only when bash would see exactly that text with no expansion:
//! quotes removed and escapes resolved. Anything bash would expand (a parameter, a substitution, a glob, a
//! brace or tilde expansion) is reported as `None`, so the policy can tell "not resolvable statically" from
//! a value. What a command *means* (wrappers, `bash -c`, rules) is the caller's business.

mod literal;
mod walk;

pub use walk::{simple_commands, ParsedScript, SimpleCommand};
