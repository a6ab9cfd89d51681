//! The fast path: a hand-written parser for the shapes of bash it fully understands (simple commands, pipelines,
//! `&&`/`||` lists, subshells, groups, `if`/`for`/`while`/`until`, function definitions, `[ … ]` tests, quotes,
//! parameter expansions, `$( )` and trailing output redirections). It yields exactly what the tree-sitter walk
//! yields for those shapes and gives up (`None`) on anything else, which then goes to tree-sitter; the differential
//! tests hold the two equal. Giving up is always safe: it only costs time.

mod compound;
mod simple;
mod word;

use crate::script::ParsedScript;

/// Returns `None` when the script holds anything this parser does not fully understand.
pub fn fast_commands(script: &str) -> Option<ParsedScript> {
    let mut parser = Parser {
        src: script,
        b: script.as_bytes(),
        pos: 0,
        out: ParsedScript::default(),
        depth: 0,
        fragile: false,
    };
    parser.list(End::Eof)?;
    Some(parser.out)
}

/// Nesting beyond this gives up (the parser recurses once per level).
const MAX_NESTING: usize = 64;

/// What ends a list of statements.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    /// `)` of a subshell or a command substitution.
    Paren,
    /// One of these reserved words in command position.
    Words(&'static [&'static str]),
}

pub(crate) struct Parser<'s> {
    src: &'s str,
    b: &'s [u8],
    pos: usize,
    out: ParsedScript,
    depth: usize,
    /// A pipeline of three or more commands ended at a newline: tree-sitter then may run the following lines (across
    /// reserved words, even out of a loop) into its last command up to the next redirection or `&&`/`||`
    /// (`a|b|c` newline `d >f` reads as `c d >f`), so either of those before the next `;` or `&` gives up.
    fragile: bool,
}

/// Bytes that end an unquoted word.
fn delimiter(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

impl<'s> Parser<'s> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn at(&self, text: &str) -> bool {
        self.b[self.pos..].starts_with(text.as_bytes())
    }

    /// Whether reserved word `word` stands here, followed by a delimiter or the end.
    fn at_word(&self, word: &str) -> bool {
        self.token() == word.as_bytes()
    }

    /// The bytes from here to the next delimiter.
    fn token(&self) -> &'s [u8] {
        let rest = &self.b[self.pos..];
        let len = rest
            .iter()
            .position(|&c| delimiter(c))
            .unwrap_or(rest.len());
        &rest[..len]
    }

    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    /// Blanks, newlines and comments between statements.
    fn gaps(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n') => self.pos += 1,
                Some(b'#') => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn ended(&self, end: End) -> bool {
        match end {
            End::Eof => self.pos >= self.b.len(),
            End::Paren => self.peek() == Some(b')'),
            End::Words(words) => {
                let token = self.token();
                words.iter().any(|word| word.as_bytes() == token)
            }
        }
    }

    /// Statements separated by `;`, `&` or newlines, up to `end` (not consumed).
    fn list(&mut self, end: End) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return None;
        }
        let mut statements = 0;
        loop {
            self.gaps();
            if self.ended(end) {
                break;
            }
            if self.pos >= self.b.len() || matches!(self.peek(), Some(b')' | b';' | b'&' | b'|')) {
                return None;
            }
            let piped = self.and_or()?;
            statements += 1;
            self.blanks();
            match self.peek() {
                Some(b';') if self.b.get(self.pos + 1) == Some(&b';') => return None,
                Some(b';' | b'&') => {
                    self.pos += 1;
                    self.fragile = false;
                }
                Some(b'\n' | b'#') => self.fragile |= piped >= 3,
                None => {}
                _ if self.ended(end) => {}
                _ => return None,
            }
        }
        self.depth -= 1;
        // An empty body (`if true; then fi`) is a syntax error bash and tree-sitter both refuse.
        (statements > 0 || end == End::Eof).then_some(())
    }

    /// Pipelines joined by `&&` and `||`; how many commands the last one has.
    fn and_or(&mut self) -> Option<usize> {
        let mut piped = self.pipeline()?;
        loop {
            self.blanks();
            if !(self.at("&&") || self.at("||")) {
                return Some(piped);
            }
            if self.fragile {
                return None;
            }
            self.pos += 2;
            self.gaps();
            piped = self.pipeline()?;
        }
    }

    fn pipeline(&mut self) -> Option<usize> {
        self.command()?;
        let mut commands = 1;
        loop {
            self.blanks();
            if self.peek() != Some(b'|') || matches!(self.b.get(self.pos + 1), Some(b'|' | b'&')) {
                return Some(commands);
            }
            self.pos += 1;
            self.gaps();
            self.command()?;
            commands += 1;
        }
    }

    fn command(&mut self) -> Option<()> {
        self.blanks();
        if self.at("((") {
            return None;
        } else if self.peek() == Some(b'(') {
            self.pos += 1;
            self.parenthesized()?;
        } else {
            match self.token() {
                b"{" => {
                    self.pos += 1;
                    self.list(End::Words(&["}"]))?;
                    self.pos += 1;
                }
                b"if" => self.if_statement()?,
                b"for" => self.for_statement()?,
                b"while" | b"until" => {
                    self.pos += 5;
                    self.list(End::Words(&["do"]))?;
                    self.body()?;
                }
                b"[" => self.test()?,
                _ => return self.simple(),
            }
        }
        self.blanks();
        // A redirection after a compound command, or words glued to it, goes to tree-sitter.
        match self.peek() {
            Some(b';' | b'&' | b'|' | b'\n' | b')' | b'#') | None => Some(()),
            _ => None,
        }
    }

    /// The list of `( … )` or `$( … )` up to its `)`, consumed. A `;` inside does not end a run-on of the list
    /// around it (see `fragile`): tree-sitter reads the parentheses as part of the run-on command.
    fn parenthesized(&mut self) -> Option<()> {
        let outer = self.fragile;
        self.list(End::Paren)?;
        self.pos += 1;
        self.fragile |= outer;
        Some(())
    }
}
