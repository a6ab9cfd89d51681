//! Simple commands for the fast path: leading assignments, words, trailing redirections; and function definitions.

use super::{delimiter, Parser};
use crate::script::{Assignment, SimpleCommand};

impl<'s> Parser<'s> {
    pub(super) fn identifier(&mut self) -> Option<&'s str> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c == b'_' || c.is_ascii_alphanumeric())
        {
            self.pos += 1;
        }
        let name = &self.src[start..self.pos];
        (!name.is_empty() && !name.as_bytes()[0].is_ascii_digit()).then_some(name)
    }

    /// Length of `NAME=` at the current position, if an assignment starts here.
    pub(super) fn assignment_here(&self) -> Option<usize> {
        let rest = &self.b[self.pos..];
        let first = *rest.first()?;
        if !(first == b'_' || first.is_ascii_alphabetic()) {
            return None;
        }
        let len = rest
            .iter()
            .position(|&c| !(c == b'_' || c.is_ascii_alphanumeric()))?;
        (rest[len] == b'=').then_some(len)
    }

    /// A simple command (with leading assignments and trailing redirections), an assignment, or a function.
    pub(super) fn simple(&mut self) -> Option<()> {
        let start = self.pos;
        let slot = self.out.commands.len();
        let mut assignments = 0;
        while let Some(len) = self.assignment_here() {
            let name = self.src[self.pos..self.pos + len].to_owned();
            let index = self.out.assigned.len();
            self.out.assigned.push(Assignment {
                name: Some(name),
                value: None,
            });
            self.pos += len + 1;
            let value = match self.peek() {
                Some(b'(') => return None,
                Some(c) if !delimiter(c) => {
                    let value = self.word()?;
                    if value.tangled {
                        return None;
                    }
                    value.literal
                }
                None | Some(b' ' | b'\t' | b';') => Some(String::new()),
                _ => return None,
            };
            self.out.assigned[index].value = value;
            assignments += 1;
            self.blanks();
        }
        if self
            .peek()
            .is_none_or(|c| matches!(c, b'\n' | b';' | b'&' | b'|' | b')' | b'#'))
        {
            // An assignment alone in a pipeline is bash but not tree-sitter; two or more before a newline, tree-sitter
            // gives to the next line's command.
            let run_on = assignments > 1 && matches!(self.peek(), Some(b'\n' | b'#'));
            return (assignments > 0 && self.peek() != Some(b'|') && !run_on).then_some(());
        }
        if assignments == 0 && self.function()? {
            return Some(());
        }
        let token = self.token();
        if RESERVED.iter().any(|word| word.as_bytes() == token) {
            return None;
        }
        let mut words = Vec::new();
        let mut end = start;
        let mut stdin = None;
        loop {
            self.blanks();
            match self.peek() {
                None | Some(b'\n' | b';' | b'&' | b'|' | b')' | b'#') => break,
                _ => {}
            }
            if self.redirect_here() {
                // tree-sitter loses a lone `-` right before `2>`.
                if words
                    .last()
                    .is_some_and(|w: &Option<String>| w.as_deref() == Some("-"))
                {
                    return None;
                }
                stdin = self.redirects()?;
                break;
            }
            let word_start = self.pos;
            let word = self.word()?;
            // tree-sitter reads a first word like `--opt=x` as an assignment, and refuses some bytes in a name.
            if words.is_empty()
                && (self.b[word_start] == b'-'
                    || self.b[word_start..word.end]
                        .iter()
                        .any(|c| b"=%^,~*?:".contains(c)))
            {
                return None;
            }
            end = word.end;
            words.push(word.literal);
        }
        if words.is_empty() {
            return None;
        }
        let text = self.src[start..end].to_owned();
        self.out
            .commands
            .insert(slot, SimpleCommand { words, text, stdin });
        Some(())
    }

    /// `NAME() { … }` or `NAME() ( … )`; false when no definition starts here.
    pub(super) fn function(&mut self) -> Option<bool> {
        let start = self.pos;
        let Some(name) = self.identifier() else {
            self.pos = start;
            return Some(false);
        };
        self.blanks();
        if !self.at("()") {
            self.pos = start;
            return Some(false);
        }
        self.pos += 2;
        self.gaps();
        if !(self.at_word("{") || self.peek() == Some(b'(')) {
            return None;
        }
        self.out.functions.push(name.to_owned());
        self.command()?;
        Some(true)
    }
}

/// Reserved words this parser does not take as a command name (the ones it parses are matched before).
const RESERVED: &[&str] = &[
    "then", "elif", "else", "fi", "do", "done", "case", "esac", "select", "function", "time",
    "coproc", "in", "}", "!", "[[", "]]", "export", "declare", "typeset", "local", "readonly",
    "unset",
];
