//! What a parse yields: the simple commands a script can run, the functions it defines and the variables it sets.

/// Where a simple command's standard input comes from, when a redirection of its own says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stdin {
    /// A here-document or here-string whose text is literal: exactly these bytes.
    Text(String),
    /// `< path` with a literal path.
    File(String),
    /// Anything else: a duplicated or closed descriptor, an expanded word or body.
    Other,
}

/// One simple command as bash would run it: its words after any leading assignments and without redirections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command name and its arguments; `None` where a word is not a literal.
    pub words: Vec<Option<String>>,
    /// The command's source text, for messages.
    pub text: String,
    /// Its standard input, when one of its own redirections sets it (the last one for descriptor 0 wins).
    pub stdin: Option<Stdin>,
}

/// A variable the script sets: by an assignment, `export`/`declare`/`local`/`readonly`/`typeset`, or `for`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// `None` when the name is not literal (`declare "$n=1"`).
    pub name: Option<String>,
    /// The value when it is literal; `None` when it is expanded, appended to, or not given.
    pub value: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedScript {
    /// In source order (an enclosing command before the commands substituted into it).
    pub commands: Vec<SimpleCommand>,
    /// The grammar could not parse some part of the script, so the list may miss commands.
    pub error: bool,
    /// Names of the functions the script defines (their bodies are listed like any other commands).
    pub functions: Vec<String>,
    /// Every variable it sets, in source order.
    pub assigned: Vec<Assignment>,
}
