//! A record's decoded view as one JSON line, in the host's names (`--check-request` prints it, so the host's encoder
//! is held against this decoder field by field), and the JSON text of the formats' description (`spec`).

use crate::fields::Sink;

/// The fields written to it, as one JSON object; a name `group.field` goes into the object `group`.
#[derive(Default)]
pub struct Json {
    entries: Vec<(&'static str, String)>,
}

impl Json {
    /// The object. A group whose fields are all null is left out, as the host leaves out what is absent (a request's
    /// terminal, for a command on pipes).
    pub fn finish(self) -> String {
        let outer = |name: &str| name.split_once('.').map(|(outer, _)| outer.to_owned());
        let absent = |group: &str| {
            self.entries
                .iter()
                .filter(|(name, _)| outer(name).as_deref() == Some(group))
                .all(|(_, value)| value == "null")
        };
        let entries: Vec<&(&str, String)> = self
            .entries
            .iter()
            .filter(|(name, _)| outer(name).is_none_or(|group| !absent(&group)))
            .collect();
        let mut out = String::from("{");
        let mut group: Option<&str> = None;
        for (i, (name, value)) in entries.into_iter().enumerate() {
            let (outer, inner) = match name.split_once('.') {
                Some((outer, inner)) => (Some(outer), inner),
                None => (None, *name),
            };
            if outer != group {
                if group.is_some() {
                    out.push('}');
                }
                if i > 0 {
                    out.push(',');
                }
                if let Some(outer) = outer {
                    out.push_str(&format!("{}:{{", string(outer)));
                }
            } else if i > 0 {
                out.push(',');
            }
            group = outer;
            out.push_str(&format!("{}:{value}", string(inner)));
        }
        if group.is_some() {
            out.push('}');
        }
        out.push('}');
        out
    }
}

impl Sink for Json {
    fn text(&mut self, name: &'static str, value: &str) {
        self.entries.push((name, string(value)));
    }

    fn count(&mut self, name: &'static str, value: Option<u64>) {
        let value = value.map_or_else(|| "null".to_string(), |n| n.to_string());
        self.entries.push((name, value));
    }

    fn list(&mut self, name: &'static str, items: &[String]) {
        let items: Vec<String> = items.iter().map(|item| string(item)).collect();
        self.entries.push((name, format!("[{}]", items.join(","))));
    }

    fn pairs(&mut self, name: &'static str, items: &[(String, String)]) {
        let items: Vec<String> = items
            .iter()
            .map(|(key, value)| format!("{}:{}", string(key), string(value)))
            .collect();
        self.entries
            .push((name, format!("{{{}}}", items.join(","))));
    }

    fn rest(&mut self, name: &'static str, bytes: Option<&[u8]>) {
        let value = bytes.map_or_else(
            || "null".to_string(),
            |bytes| string(&String::from_utf8_lossy(bytes)),
        );
        self.entries.push((name, value));
    }
}

/// A JSON string literal.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON array of string literals.
pub fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = items.into_iter().map(string).collect();
    format!("[{}]", items.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::request::Request;

    #[test]
    fn prints_every_field_in_the_hosts_names() {
        let request = Request {
            cwd: "/w \"q\"".into(),
            plan: Plan {
                command: "echo\n".into(),
                nproc: Some(3),
                ..Plan::default()
            },
            env: vec![("A".into(), "b\\c".into())],
            terminal: Some(crate::term::Size { cols: 80, rows: 24 }),
            stdin: None,
        };
        let mut json = Json::default();
        request.encode(&mut json);
        assert_eq!(
            json.finish(),
            "{\"cwd\":\"/w \\\"q\\\"\",\"plan\":{\"backend\":\"none\",\"bwrapPath\":\"\",\"network\":\"allow\",\"isolation\":\"auto\",\"view\":\"host\",\"nproc\":3,\"writable\":[],\"hidden\":[],\"readable\":[],\"denied\":[],\"cgroups\":[],\"cgroupLimits\":[]},\"command\":\"echo\\u000a\",\"env\":{\"A\":\"b\\\\c\"},\"terminal\":{\"cols\":80,\"rows\":24},\"stdin\":null}"
        );
        // On pipes: no terminal at all, as the host writes none.
        let mut json = Json::default();
        Request {
            terminal: None,
            ..request
        }
        .encode(&mut json);
        let printed = json.finish();
        assert!(
            printed.ends_with("\"env\":{\"A\":\"b\\\\c\"},\"stdin\":null}"),
            "{printed}"
        );
    }
}
