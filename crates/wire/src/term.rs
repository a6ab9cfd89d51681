//! A terminal job's words: the size a request asks its terminal to have (and a `resize` control line), the screen the
//! runner answers a `screen` control line with (a `screen` status line), and the hex that carries bytes in a line.
//! The host writes and reads them in src/executor/wire/term.ts.

/// The smallest and largest side a terminal may have (what a request or a resize may ask).
pub const MIN_SIDE: u16 = 2;
pub const MAX_SIDE: u16 = 1000;

/// A terminal's size, in character cells.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Size {
    pub cols: u16,
    pub rows: u16,
}

impl Size {
    /// A size from two numbers, when both are within the sides a terminal may have.
    pub fn new(cols: u64, rows: u64) -> Option<Size> {
        let side = |n: u64| {
            u16::try_from(n)
                .ok()
                .filter(|n| (MIN_SIDE..=MAX_SIDE).contains(n))
        };
        Some(Size {
            cols: side(cols)?,
            rows: side(rows)?,
        })
    }
}

/// The screen as the runner's model of the terminal holds it: each row's text (trailing blanks dropped), where the
/// cursor is (0-based), and whether a full-screen program drew it on the alternate screen.
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct Screen {
    pub size: Size,
    pub alternate: bool,
    pub cursor_row: u16,
    pub cursor_col: u16,
    pub rows: Vec<String>,
}

/// The `screen` status line's arguments.
pub const SCREEN_ARGS: &[&str] = &["cols", "rows", "alternate", "cursorRow", "cursorCol", "hex"];

impl Screen {
    /// The status line's arguments (after its word), the rows joined by newlines and written in hex.
    pub fn args(&self) -> String {
        format!(
            "{} {} {} {} {} {}",
            self.size.cols,
            self.size.rows,
            u8::from(self.alternate),
            self.cursor_row,
            self.cursor_col,
            hex(self.rows.join("\n").as_bytes())
        )
    }

    /// # Errors
    /// None when a field is missing or malformed.
    pub fn parse(args: &str) -> Option<Screen> {
        let mut words = args.split(' ');
        let mut number = || words.next()?.parse::<u64>().ok();
        let size = Size::new(number()?, number()?)?;
        let alternate = number()? == 1;
        let (cursor_row, cursor_col) = (number()?, number()?);
        let text = String::from_utf8(unhex(words.next()?)?).ok()?;
        Some(Screen {
            size,
            alternate,
            cursor_row: u16::try_from(cursor_row).ok()?,
            cursor_col: u16::try_from(cursor_col).ok()?,
            rows: text.split('\n').map(str::to_owned).collect(),
        })
    }
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// Hex (either case) as bytes; None for an odd length or a character that is not a hex digit.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let value = |d: u8| char::from(d).to_digit(16).map(|v| v as u8);
    digits
        .chunks(2)
        .map(|pair| Some(value(pair[0])? << 4 | value(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_reads_back() {
        let screen = Screen {
            size: Size { cols: 80, rows: 3 },
            alternate: true,
            cursor_row: 2,
            cursor_col: 7,
            rows: vec!["~ héllo".into(), String::new(), ":wq".into()],
        };
        assert_eq!(Screen::parse(&screen.args()), Some(screen));
        assert_eq!(Screen::parse("80 24 0 0 0 6"), None);
        assert_eq!(Screen::parse("80 24 0 0"), None);
    }
}
