//! The NUL-terminated text fields a request frame is made of: one reader, one writer, shared by the request and
//! the plan inside it.

/// Reads fields off the front of a frame body.
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

    /// What follows the last field read.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }
}

/// Appends fields to a frame body (the host writes the same bytes; this one serves the tests).
#[derive(Default)]
pub struct Writer {
    pub body: Vec<u8>,
}

impl Writer {
    pub fn text(&mut self, text: &str) {
        self.body.extend_from_slice(text.as_bytes());
        self.body.push(0);
    }

    pub fn list<S: AsRef<str>>(&mut self, items: &[S]) {
        self.text(&items.len().to_string());
        items.iter().for_each(|item| self.text(item.as_ref()));
    }
}

/// A little-endian u32 length, then `body`.
pub fn framed(body: &[u8]) -> Vec<u8> {
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(body);
    frame
}
