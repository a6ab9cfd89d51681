//! A parse as one JSON text: handing JavaScript one string that `JSON.parse` reads costs a fraction of building
//! the same objects one property at a time through N-API (about 1.5 µs a command against 0.2).

use std::fmt::Write;

use crate::script::{ParsedScript, Stdin};

impl ParsedScript {
    /// `{"commands":[{"words":[…|null],"text":…,"stdin":{"kind":…,"value":…}}],"error":…,"functions":[…],
    /// "assigned":[{"name":…,"value":…}]}`, with `stdin` left out where a command has none.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(64 + self.commands.len() * 64);
        out.push_str("{\"commands\":[");
        for (i, command) in self.commands.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"words\":[");
            for (j, word) in command.words.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                optional(&mut out, word.as_deref());
            }
            out.push_str("],\"text\":");
            string(&mut out, &command.text);
            if let Some(stdin) = &command.stdin {
                let (kind, value) = match stdin {
                    Stdin::Text(text) => ("text", Some(text.as_str())),
                    Stdin::File(path) => ("file", Some(path.as_str())),
                    Stdin::Other => ("other", None),
                };
                out.push_str(",\"stdin\":{\"kind\":\"");
                out.push_str(kind);
                out.push_str("\",\"value\":");
                optional(&mut out, value);
                out.push('}');
            }
            out.push('}');
        }
        out.push_str("],\"error\":");
        out.push_str(if self.error { "true" } else { "false" });
        out.push_str(",\"functions\":[");
        for (i, name) in self.functions.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            string(&mut out, name);
        }
        out.push_str("],\"assigned\":[");
        for (i, assignment) in self.assigned.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"name\":");
            optional(&mut out, assignment.name.as_deref());
            out.push_str(",\"value\":");
            optional(&mut out, assignment.value.as_deref());
            out.push('}');
        }
        out.push_str("]}");
        out
    }
}

fn optional(out: &mut String, value: Option<&str>) {
    match value {
        Some(text) => string(out, text),
        None => out.push_str("null"),
    }
}

/// A JSON string: `"` and `\` escaped, control characters as `\u00XX`, everything else as it is.
fn string(out: &mut String, text: &str) {
    out.push('"');
    let bytes = text.as_bytes();
    let mut plain = 0;
    for (i, &c) in bytes.iter().enumerate() {
        // Only ASCII bytes are escaped, so every cut falls on a character boundary.
        if c == b'"' || c == b'\\' || c < b' ' {
            out.push_str(&text[plain..i]);
            match c {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                b'\n' => out.push_str("\\n"),
                b'\t' => out.push_str("\\t"),
                _ => {
                    let _ = write!(out, "\\u{c:04x}");
                }
            }
            plain = i + 1;
        }
    }
    out.push_str(&text[plain..]);
    out.push('"');
}
