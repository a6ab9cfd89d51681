//! The NUL-terminated fields a request-like record is made of, and the little-endian u32 length that frames one.
//! A record writes its fields through a `Sink` that names each, so its bytes, its description (`spec`) and its
//! decoded view (`json`) all come from the one function that encodes it.

use std::io::Read;

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One text field.
    Text,
    /// A whole number in decimal, or an empty field for none.
    Count,
    /// A decimal count, then that many text fields.
    List,
    /// A decimal count, then that many `NAME=value` fields.
    Pairs,
    /// The rest of the frame: `-` for none, or `+` then raw bytes (which may hold NULs).
    Rest,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Count => "count",
            Kind::List => "list",
            Kind::Pairs => "pairs",
            Kind::Rest => "rest",
        }
    }
}

/// Where a record's fields go, each with its name (`group.field` inside a nested record).
pub trait Sink {
    fn text(&mut self, name: &'static str, value: &str);
    fn count(&mut self, name: &'static str, value: Option<u64>);
    fn list(&mut self, name: &'static str, items: &[String]);
    fn pairs(&mut self, name: &'static str, items: &[(String, String)]);
    fn rest(&mut self, name: &'static str, bytes: Option<&[u8]>);
}

/// The bytes of a record.
#[derive(Default)]
pub struct Writer {
    pub body: Vec<u8>,
}

impl Writer {
    fn field(&mut self, text: &str) {
        self.body.extend_from_slice(text.as_bytes());
        self.body.push(0);
    }
}

impl Sink for Writer {
    fn text(&mut self, _: &'static str, value: &str) {
        self.field(value);
    }

    fn count(&mut self, _: &'static str, value: Option<u64>) {
        self.field(&value.map(|n| n.to_string()).unwrap_or_default());
    }

    fn list(&mut self, _: &'static str, items: &[String]) {
        self.field(&items.len().to_string());
        items.iter().for_each(|item| self.field(item));
    }

    fn pairs(&mut self, _: &'static str, items: &[(String, String)]) {
        self.field(&items.len().to_string());
        items
            .iter()
            .for_each(|(name, value)| self.field(&format!("{name}={value}")));
    }

    fn rest(&mut self, _: &'static str, bytes: Option<&[u8]>) {
        match bytes {
            None => self.body.push(b'-'),
            Some(bytes) => {
                self.body.push(b'+');
                self.body.extend_from_slice(bytes);
            }
        }
    }
}

/// The names and kinds of a record's fields, in order: what the host's encoder is checked against.
#[derive(Default)]
pub struct Names(pub Vec<(&'static str, Kind)>);

impl Sink for Names {
    fn text(&mut self, name: &'static str, _: &str) {
        self.0.push((name, Kind::Text));
    }
    fn count(&mut self, name: &'static str, _: Option<u64>) {
        self.0.push((name, Kind::Count));
    }
    fn list(&mut self, name: &'static str, _: &[String]) {
        self.0.push((name, Kind::List));
    }
    fn pairs(&mut self, name: &'static str, _: &[(String, String)]) {
        self.0.push((name, Kind::Pairs));
    }
    fn rest(&mut self, name: &'static str, _: Option<&[u8]>) {
        self.0.push((name, Kind::Rest));
    }
}

/// Reads fields off the front of a record's bytes.
pub struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    pub fn new(body: &'a [u8]) -> Fields<'a> {
        Fields { rest: body }
    }

    /// The next field, without its NUL.
    ///
    /// # Errors
    /// A field with no NUL, or not UTF-8.
    pub fn text(&mut self) -> Result<String, String> {
        let end = self
            .rest
            .iter()
            .position(|&b| b == 0)
            .ok_or("request: a field is not terminated")?;
        let text = std::str::from_utf8(&self.rest[..end])
            .map_err(|_| "request: a field is not UTF-8")?
            .to_owned();
        self.rest = &self.rest[end + 1..];
        Ok(text)
    }

    /// A decimal count, then that many fields.
    ///
    /// # Errors
    /// As `text`, or a count that is not a number.
    pub fn list(&mut self) -> Result<Vec<String>, String> {
        let text = self.text()?;
        let count = text
            .parse::<usize>()
            .map_err(|_| format!("request: not a count: {text:?}"))?;
        (0..count).map(|_| self.text()).collect()
    }

    /// A list of `NAME=value` entries.
    ///
    /// # Errors
    /// As `list`, or an entry without `=`.
    pub fn pairs(&mut self) -> Result<Vec<(String, String)>, String> {
        self.list()?
            .into_iter()
            .map(|entry| match entry.split_once('=') {
                Some((name, value)) => Ok((name.to_owned(), value.to_owned())),
                None => Err(format!("request: not NAME=value: {entry:?}")),
            })
            .collect()
    }

    /// The marked rest of the record: None for `-`, the bytes after `+`.
    ///
    /// # Errors
    /// Neither marker.
    pub fn marked_rest(&mut self) -> Result<Option<Vec<u8>>, String> {
        let rest = std::mem::take(&mut self.rest);
        match rest.split_first() {
            Some((b'-', [])) => Ok(None),
            Some((b'+', bytes)) => Ok(Some(bytes.to_vec())),
            _ => Err("request: the stdin marker is missing".into()),
        }
    }

    /// What follows the last field read.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }
}

/// The largest record accepted: commands and environments are far smaller; this only stops a corrupt length.
pub const MAX_RECORD: usize = 256 << 20;

/// A little-endian u32 length, then `body`.
pub fn framed(body: &[u8]) -> Vec<u8> {
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(body);
    frame
}

/// Reads one length-prefixed record's body (blocking).
///
/// # Errors
/// End-of-file before a whole record, an I/O error, or a length too large.
pub fn read_framed(from: &mut impl Read) -> Result<Vec<u8>, String> {
    let mut length = [0u8; 4];
    from.read_exact(&mut length)
        .map_err(|e| format!("request: {e}"))?;
    let length = u32::from_le_bytes(length) as usize;
    if length > MAX_RECORD {
        return Err(format!("request: a frame of {length} bytes is too large"));
    }
    let mut body = vec![0u8; length];
    from.read_exact(&mut body)
        .map_err(|e| format!("request: {e}"))?;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_back() {
        let mut out = Writer::default();
        out.text("a", "x y");
        out.count("b", Some(7));
        out.count("c", None);
        out.list("d", &["1".into(), "".into()]);
        out.pairs("e", &[("K".into(), "v=w".into())]);
        out.rest("f", Some(b"\0bytes"));
        let mut fields = Fields::new(&out.body);
        assert_eq!(fields.text().unwrap(), "x y");
        assert_eq!(fields.text().unwrap(), "7");
        assert_eq!(fields.text().unwrap(), "");
        assert_eq!(fields.list().unwrap(), ["1", ""]);
        assert_eq!(fields.pairs().unwrap(), [("K".into(), "v=w".into())]);
        assert_eq!(fields.marked_rest().unwrap().unwrap(), b"\0bytes");
    }

    #[test]
    fn names_follow_the_writes() {
        let mut names = Names::default();
        names.text("a", "");
        names.rest("b", None);
        assert_eq!(names.0, [("a", Kind::Text), ("b", Kind::Rest)]);
    }
}
