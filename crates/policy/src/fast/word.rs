//! Words and redirections for the fast path: quotes, expansions and `$( )` (parsed in place), with each word's
//! literal value computed as the tree-sitter walk computes it.

use super::{delimiter, Parser};
use crate::literal::{double_quoted_text, unquoted};
use crate::script::Stdin;

/// Reserved words tree-sitter splits from quotes glued to them.
const RESERVED_GLUE: &[&str] = &[
    "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case",
    "esac", "select", "function", "time",
];

/// A scanned word: where it ends, its literal value, and whether it is one unquoted run.
pub(crate) struct Scanned {
    pub end: usize,
    pub literal: Option<String>,
    pub plain: bool,
    /// Three or more parts with an expansion among them (`"a"b$1`), which tree-sitter misreads in an assignment.
    pub tangled: bool,
}

#[derive(Clone, Copy)]
enum Piece {
    Plain(usize, usize),
    Single(usize, usize),
    Double(usize, usize),
    Expanded,
}

/// A word's pieces without a heap allocation; a word of more pieces goes to tree-sitter.
struct Pieces {
    items: [Piece; 8],
    len: usize,
}

impl Pieces {
    fn push(&mut self, piece: Piece) -> Option<()> {
        *self.items.get_mut(self.len)? = piece;
        self.len += 1;
        Some(())
    }
    fn as_slice(&self) -> &[Piece] {
        &self.items[..self.len]
    }
    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Parser<'_> {
    /// One word at the current position; `None` when it holds anything the fast path does not understand.
    pub(super) fn word(&mut self) -> Option<Scanned> {
        let mut pieces = Pieces {
            items: [Piece::Expanded; 8],
            len: 0,
        };
        let mut plain_start = None;
        let mut escaped = false;
        while let Some(c) = self.peek() {
            if delimiter(c) {
                if matches!(c, b'<' | b'>') || (c == b'(' && !pieces.is_empty()) {
                    // `a>b`, `a<b`, `a(b`: tree-sitter and bash split these in ways not modelled here.
                    return None;
                }
                break;
            }
            match c {
                b'\'' | b'"' | b'$' => {
                    if let Some(from) = plain_start.take() {
                        // tree-sitter reads `fi'x'` as the reserved word and a new word.
                        if pieces.is_empty() && RESERVED_GLUE.contains(&&self.src[from..self.pos]) {
                            return None;
                        }
                        pieces.push(Piece::Plain(from, self.pos))?;
                    }
                    let piece = match c {
                        b'\'' => self.single()?,
                        b'"' => self.double()?,
                        _ => self.dollar()?,
                    };
                    pieces.push(piece)?;
                }
                b'\\' => {
                    // tree-sitter drops an escaped blank that starts a word and splits a word at a line continuation.
                    // It also joins a line that starts with a backslash to the line before.
                    let next = self.b.get(self.pos + 1);
                    let first = pieces.is_empty() && plain_start.is_none();
                    if next == Some(&b'\n')
                        || (first
                            && (matches!(next, Some(b' ' | b'\t'))
                                || self.b.get(self.pos.wrapping_sub(1)) == Some(&b'\n')))
                    {
                        return None;
                    }
                    // tree-sitter splits `""\x` in two (bash does not); the walk joins them, this path gives up.
                    if plain_start.is_none() && !pieces.is_empty() {
                        return None;
                    }
                    plain_start.get_or_insert(self.pos);
                    escaped = true;
                    // An escaped byte, or an escaped newline inside the word.
                    if self.pos + 1 >= self.b.len() {
                        return None;
                    }
                    self.pos += 2;
                    self.skip_utf8_tail();
                }
                // Bytes tree-sitter gives a meaning of its own in some places (`@`, `{`, `[`, `!`, ...) go to it.
                c if !(c.is_ascii_alphanumeric() || c >= 0x80 || b"_-./+,:=%*?~^".contains(&c)) => {
                    return None
                }
                _ => {
                    plain_start.get_or_insert(self.pos);
                    self.pos += 1;
                }
            }
        }
        if let Some(from) = plain_start {
            pieces.push(Piece::Plain(from, self.pos))?;
        }
        let pieces = pieces.as_slice();
        // tree-sitter drops `==` (and reads `=~`) where bash keeps the word.
        if pieces.iter().any(|piece| matches!(*piece, Piece::Plain(from, to) if self.src[from..to].contains("==") || self.src[from..to].contains("=~"))) {
            return None;
        }
        // tree-sitter splits `$X\ y` in two where bash keeps one word.
        if pieces.is_empty()
            || (escaped && pieces.iter().any(|piece| matches!(piece, Piece::Expanded)))
        {
            return None;
        }
        let plain = matches!(pieces, [Piece::Plain(..)]);
        let tangled =
            pieces.len() > 2 && pieces.iter().any(|piece| matches!(piece, Piece::Expanded));
        Some(Scanned {
            end: self.pos,
            literal: self.literal(pieces),
            plain,
            tangled,
        })
    }

    fn skip_utf8_tail(&mut self) {
        while self.peek().is_some_and(|c| (c & 0xC0) == 0x80) {
            self.pos += 1;
        }
    }

    /// The literal of a word's pieces, as `literal::literal` computes it for the node tree-sitter makes of them.
    fn literal(&self, pieces: &[Piece]) -> Option<String> {
        let text = |from: usize, to: usize| &self.src[from..to];
        let one = |piece: &Piece| -> Option<String> {
            match *piece {
                Piece::Plain(from, to) => unquoted(text(from, to)),
                Piece::Single(from, to) => Some(text(from + 1, to - 1).to_owned()),
                Piece::Double(from, to) => double_quoted_text(text(from, to)),
                Piece::Expanded => None,
            }
        };
        if let [only] = pieces {
            return one(only);
        }
        // A concatenation: globs and braces span its parts, so its unquoted shape is checked whole.
        let mut shape = String::new();
        let mut out = String::new();
        for piece in pieces {
            match *piece {
                Piece::Plain(from, to) => shape.push_str(text(from, to)),
                _ => shape.push('_'),
            }
            out.push_str(&one(piece)?);
        }
        unquoted(&shape)?;
        Some(out)
    }

    fn single(&mut self) -> Option<Piece> {
        let start = self.pos;
        let close = self.b[start + 1..].iter().position(|&c| c == b'\'')?;
        self.pos = start + 1 + close + 1;
        Some(Piece::Single(start, self.pos))
    }

    fn double(&mut self) -> Option<Piece> {
        let start = self.pos;
        self.pos += 1;
        let mut expanded = false;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' => self.pos += 2,
                b'`' => return None,
                b'$' => match self.b.get(self.pos + 1) {
                    Some(b'(' | b'{') => {
                        self.dollar()?;
                        expanded = true;
                    }
                    Some(&n)
                        if n == b'_' || n.is_ascii_alphanumeric() || b"@*#?$!-".contains(&n) =>
                    {
                        self.dollar()?;
                        expanded = true;
                    }
                    _ => return None,
                },
                _ => self.pos += 1,
            }
        }
        self.pos += 1;
        Some(if expanded {
            Piece::Expanded
        } else {
            Piece::Double(start, self.pos)
        })
    }

    /// `$NAME`, `$1`, a special parameter, `${NAME}` or a simple `${NAME…}`, `$( … )`.
    fn dollar(&mut self) -> Option<Piece> {
        self.pos += 1;
        match self.peek()? {
            b'(' => {
                if self.b.get(self.pos + 1) == Some(&b'(') {
                    return None;
                }
                self.pos += 1;
                self.parenthesized()?;
            }
            b'{' => {
                let close = self.b[self.pos..].iter().position(|&c| c == b'}')?;
                if !simple_braced(&self.b[self.pos + 1..self.pos + close]) {
                    return None;
                }
                self.pos += close + 1;
            }
            c if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => self.pos += 1,
            c if c == b'_' || c.is_ascii_alphabetic() => {
                while self
                    .peek()
                    .is_some_and(|c| c == b'_' || c.is_ascii_alphanumeric())
                {
                    self.pos += 1;
                }
            }
            _ => return None,
        }
        Some(Piece::Expanded)
    }

    /// Whether a redirection starts here: `>`, `>>`, `&>`, `<` or a descriptor's digits before `>`.
    pub(super) fn redirect_here(&self) -> bool {
        let rest = &self.b[self.pos..];
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        matches!(rest.get(digits), Some(b'>'))
            || (digits == 0 && (rest.starts_with(b"&>") || rest.first() == Some(&b'<')))
    }

    /// Trailing redirections, each with one target word, up to the end of the command; the standard input they set.
    pub(super) fn redirects(&mut self) -> Option<Option<Stdin>> {
        let mut stdin = None;
        loop {
            self.blanks();
            match self.peek() {
                None | Some(b'\n' | b';' | b'&' | b'|' | b')' | b'#') if !self.at("&>") => {
                    return Some(stdin)
                }
                _ => {}
            }
            if !self.redirect_here() || self.fragile {
                return None;
            }
            let digits = self.b[self.pos..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            self.pos += digits;
            let input = self.peek() == Some(b'<');
            let operator = [">>", ">&", ">", "&>>", "&>", "<"]
                .into_iter()
                .find(|op| self.at(op))?;
            self.pos += operator.len();
            if matches!(self.peek(), Some(b'<' | b'>' | b'&' | b'|' | b'('))
                || (input && digits > 0)
            {
                return None;
            }
            self.blanks();
            let target = self.word()?;
            let descriptor = target
                .literal
                .as_deref()
                .is_some_and(|t| t == "-" || t.bytes().all(|c| c.is_ascii_digit()));
            if operator == ">&" && !(target.plain && descriptor) {
                return None;
            }
            if input {
                stdin = Some(target.literal.map_or(Stdin::Other, Stdin::File));
            }
        }
    }
}

/// `NAME`, `#NAME`, a positional or special parameter, then at most a default (`:-word`, `=word`, ...) or a
/// prefix/suffix pattern (`#word`, `%%word`) of plain characters.
fn simple_braced(inner: &[u8]) -> bool {
    let word = |c: &u8| c.is_ascii_alphanumeric() || b"_./*".contains(c);
    let name_len = match inner {
        [b'#', rest @ ..]
            if rest
                .first()
                .is_some_and(|&c| c == b'_' || c.is_ascii_alphabetic()) =>
        {
            1 + rest
                .iter()
                .take_while(|&&c| c == b'_' || c.is_ascii_alphanumeric())
                .count()
        }
        [c, ..] if *c == b'_' || c.is_ascii_alphabetic() => inner
            .iter()
            .take_while(|&&c| c == b'_' || c.is_ascii_alphanumeric())
            .count(),
        [c, ..] if c.is_ascii_digit() => inner.iter().take_while(|c| c.is_ascii_digit()).count(),
        [c] if b"@*#?$!-".contains(c) => 1,
        _ => return false,
    };
    let rest = &inner[name_len..];
    if inner[0] == b'#' && !rest.is_empty() {
        return false;
    }
    let operator = [
        &b":-"[..],
        b":=",
        b":+",
        b":?",
        b"-",
        b"=",
        b"+",
        b"?",
        b"##",
        b"#",
        b"%%",
        b"%",
    ]
    .into_iter()
    .find(|op| rest.starts_with(op))
    .map_or(0, <[u8]>::len);
    (operator > 0 || rest.is_empty()) && rest[operator..].iter().all(word)
}
