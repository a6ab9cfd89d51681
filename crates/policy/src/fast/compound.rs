//! Compound commands for the fast path: `do … done` bodies, `if`, `for`, and `[ … ]` tests.

use super::{delimiter, End, Parser};
use crate::literal::may_hold_subscript;
use crate::script::Assignment;

impl Parser<'_> {
    /// `do LIST done`.
    pub(super) fn body(&mut self) -> Option<()> {
        self.gaps();
        if !self.at_word("do") {
            return None;
        }
        self.pos += 2;
        self.list(End::Words(&["done"]))?;
        self.pos += 4;
        Some(())
    }

    pub(super) fn if_statement(&mut self) -> Option<()> {
        self.pos += 2;
        loop {
            self.list(End::Words(&["then"]))?;
            self.pos += 4;
            self.list(End::Words(&["elif", "else", "fi"]))?;
            if self.at_word("elif") {
                self.pos += 4;
                continue;
            }
            if self.at_word("else") {
                self.pos += 4;
                self.list(End::Words(&["fi"]))?;
            }
            self.pos += 2;
            return Some(());
        }
    }

    /// `for NAME [in WORDS]; do LIST done`.
    pub(super) fn for_statement(&mut self) -> Option<()> {
        self.pos += 3;
        self.blanks();
        let name = self.identifier()?;
        self.out.assigned.push(Assignment {
            name: Some(name.to_owned()),
            value: None,
        });
        self.blanks();
        if self.at_word("in") {
            self.pos += 2;
            loop {
                self.blanks();
                match self.peek() {
                    Some(b';' | b'\n') => break,
                    None => return None,
                    _ => {
                        self.word()?;
                    }
                }
            }
        }
        match self.peek() {
            Some(b';') if self.b.get(self.pos + 1) != Some(&b';') => self.pos += 1,
            Some(b'\n') => {}
            _ => return None,
        }
        self.body()
    }

    /// `[ WORD ]`, `[ -OP WORD ]`, `[ WORD OP WORD ]`: no command runs but what is substituted in the words.
    pub(super) fn test(&mut self) -> Option<()> {
        self.pos += 1;
        let mut words = Vec::new();
        loop {
            self.blanks();
            if self.at_word("]") {
                self.pos += 1;
                break;
            }
            if self.peek().is_none_or(delimiter) || words.len() == 3 {
                return None;
            }
            let start = self.pos;
            let word = self.word()?;
            // An operator must be written as itself (`-\d` is not `-d` to tree-sitter).
            let written = word.plain && word.literal.as_deref() == Some(&self.src[start..word.end]);
            // tree-sitter reads `x=` at the start of a test as an assignment.
            let operator = matches!(&self.src[start..word.end], "=" | "==" | "!=");
            if !operator && self.src[start..word.end].contains('=') {
                return None;
            }
            // A literal subscript bash may evaluate is listed by tree-sitter's walk.
            if word.literal.as_deref().is_some_and(may_hold_subscript) {
                return None;
            }
            words.push((word, written));
        }
        let plain = |i: usize| words[i].0.literal.as_deref().filter(|_| words[i].1);
        let unary = |w: Option<&str>| {
            matches!(
                w,
                Some("-d" | "-e" | "-f" | "-n" | "-z" | "-r" | "-w" | "-x" | "-s" | "-L" | "-h")
            )
        };
        let binary = |w: Option<&str>| {
            matches!(
                w,
                Some("=" | "==" | "!=" | "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge")
            )
        };
        let understood = match words.len() {
            1 => !words[0].0.plain || plain(0).is_some_and(|w| !w.starts_with('-') && w != "!"),
            2 => unary(plain(0)),
            3 => binary(plain(1)) && !plain(0).is_some_and(|w| w.starts_with('-') || w == "!"),
            _ => false,
        };
        understood.then_some(())
    }
}
