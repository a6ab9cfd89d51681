//! A word's literal value, when bash would pass it on exactly as written once quotes and escapes are resolved.

use tree_sitter::Node;

/// Whether literal text may hold an array subscript with a command substitution (`a[$(cmd)]`), which bash runs
/// where it reads the text as a variable name or a number; the policy judges it exactly.
pub(crate) fn may_hold_subscript(text: &str) -> bool {
    text.contains('[') && (text.contains('$') || text.contains('`'))
}

/// The value of a word node, or `None` when bash would expand it (or when this code is not sure it would not).
pub fn literal(node: Node, src: &[u8]) -> Option<String> {
    let text = node.utf8_text(src).ok()?;
    match node.kind() {
        "command_name" => {
            let mut cursor = node.walk();
            let mut children = node.children(&mut cursor);
            let only = children.next()?;
            if children.next().is_some() {
                return None;
            }
            literal(only, src)
        }
        "word" => unquoted(text),
        "number" => unquoted(text),
        "raw_string" => text
            .strip_prefix('\'')?
            .strip_suffix('\'')
            .map(str::to_owned),
        "string" => double_quoted(node, text),
        "translated_string" => {
            let inner = node.named_child(0)?;
            if node.named_child_count() != 1 || inner.kind() != "string" {
                return None;
            }
            double_quoted(inner, inner.utf8_text(src).ok()?)
        }
        "ansi_c_string" => ansi_c(text.strip_prefix("$'")?.strip_suffix('\'')?),
        "concatenation" => {
            let mut cursor = node.walk();
            let mut out = String::new();
            // The unquoted parts as written, quoted parts as a placeholder: globs and braces span the parts.
            let mut shape = String::new();
            for child in node.children(&mut cursor) {
                if !child.is_named() {
                    return None;
                }
                match child.kind() {
                    "word" | "number" => shape.push_str(child.utf8_text(src).ok()?),
                    _ => shape.push('_'),
                }
                out.push_str(&literal(child, src)?);
            }
            unquoted(&shape)?;
            Some(out)
        }
        _ => None,
    }
}

/// An unquoted word: escapes resolved; `None` if it holds an expansion, a glob, a brace or tilde expansion.
pub(crate) fn unquoted(text: &str) -> Option<String> {
    if text.starts_with('~') {
        return None;
    }
    // Most words hold nothing to resolve or refuse: copied whole.
    if !text.bytes().any(|c| b"\\$`*?()\"'[]{},.".contains(&c)) {
        return Some(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut open_bracket = false;
    let mut open_brace = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                match chars.next() {
                    Some('\n') => {}
                    Some(next) => out.push(next),
                    None => out.push('\\'),
                }
                continue;
            }
            '$' | '`' | '*' | '?' | '(' | ')' | '"' | '\'' => return None,
            '[' => open_bracket = true,
            ']' if open_bracket => return None,
            '{' => open_brace = true,
            ',' if open_brace => return None,
            '.' if open_brace && chars.peek() == Some(&'.') => return None,
            _ => {}
        }
        out.push(c);
    }
    Some(out)
}

/// A double-quoted string with no expansion inside: only `\$`, `` \` ``, `\"`, `\\` and `\<newline>` are escapes.
fn double_quoted(node: Node, text: &str) -> Option<String> {
    let mut cursor = node.walk();
    if node
        .named_children(&mut cursor)
        .any(|child| child.kind() != "string_content")
    {
        return None;
    }
    double_quoted_text(text)
}

/// The value of `"…"` (quotes included) when nothing in it is expanded.
pub(crate) fn double_quoted_text(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '`' {
            return None;
        }
        if c == '$'
            && chars
                .peek()
                .is_some_and(|n| n.is_alphanumeric() || "_{(@*#?$!-".contains(*n))
        {
            return None;
        }
        if c == '\\' {
            match chars.peek() {
                Some('\n') => {
                    chars.next();
                    continue;
                }
                Some(&n) if "$`\"\\".contains(n) => {
                    out.push(n);
                    chars.next();
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    Some(out)
}

/// The body of `$'…'` with its escapes decoded; `None` for an escape this code does not decode.
fn ansi_c(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escaped = match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\x07',
            'b' => '\x08',
            'e' | 'E' => '\x1b',
            'f' => '\x0c',
            'v' => '\x0b',
            '\\' => '\\',
            '\'' => '\'',
            '"' => '"',
            '?' => '?',
            'x' => {
                let mut value = 0u32;
                let mut digits = 0;
                while digits < 2 {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 || value > 0x7f {
                    return None;
                }
                char::from_u32(value)?
            }
            d @ '0'..='7' => {
                let mut value = d.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                if value > 0x7f {
                    return None;
                }
                char::from_u32(value)?
            }
            _ => return None,
        };
        if escaped == '\0' {
            // Bash ends the word at a NUL: what follows is not part of the value.
            return None;
        }
        out.push(escaped);
    }
    Some(out)
}
