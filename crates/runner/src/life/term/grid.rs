//! One screen's character cells and its cursor: what printing, moving, erasing and scrolling do to them. Cells hold
//! characters only (no colours: the model reads text); a wide character's second cell holds `WIDE`.

use unicode_width::UnicodeWidthChar;

/// The cell right of a wide character, which it covers.
const WIDE: char = '\0';
const BLANK: char = ' ';

#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub row: usize,
    pub col: usize,
    /// The last column was written: the next character goes to the next line first (autowrap).
    pub pending_wrap: bool,
}

pub struct Grid {
    cols: usize,
    lines: Vec<Vec<char>>,
    pub cursor: Cursor,
    /// The scrolling region, first and last row inclusive.
    top: usize,
    bottom: usize,
    pub autowrap: bool,
    /// Cursor rows count from the scrolling region's top (DECOM).
    pub origin: bool,
    saved: Cursor,
}

impl Grid {
    pub fn new(cols: usize, rows: usize) -> Grid {
        Grid {
            cols,
            lines: vec![vec![BLANK; cols]; rows],
            cursor: Cursor::default(),
            top: 0,
            bottom: rows - 1,
            autowrap: true,
            origin: false,
            saved: Cursor::default(),
        }
    }

    pub fn rows(&self) -> usize {
        self.lines.len()
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Each row's text, trailing blanks dropped.
    pub fn text(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|line| {
                let text: String = line.iter().filter(|&&c| c != WIDE).collect();
                text.trim_end_matches(BLANK).to_owned()
            })
            .collect()
    }

    /// Writes one character at the cursor and moves past it, wrapping first when the last column was written.
    pub fn print(&mut self, c: char) {
        let width = if c.is_ascii() {
            1
        } else {
            c.width().unwrap_or(0)
        };
        // Combining marks and other zero-width characters have no cell of their own.
        if width == 0 {
            return;
        }
        if self.cursor.pending_wrap || (width == 2 && self.cursor.col + 1 >= self.cols) {
            if !self.autowrap {
                self.cursor.col = self.cols.saturating_sub(width);
            } else {
                self.cursor.col = 0;
                self.linefeed();
            }
            self.cursor.pending_wrap = false;
        }
        let Cursor { row, col, .. } = self.cursor;
        let line = &mut self.lines[row];
        line[col] = c;
        if width == 2 && col + 1 < self.cols {
            line[col + 1] = WIDE;
        }
        if col + width >= self.cols {
            self.cursor.col = self.cols - 1;
            self.cursor.pending_wrap = true;
        } else {
            self.cursor.col = col + width;
        }
    }

    /// Down one row, scrolling the region up at its bottom.
    pub fn linefeed(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.row == self.bottom {
            self.scroll_up(1);
        } else if self.cursor.row + 1 < self.rows() {
            self.cursor.row += 1;
        }
    }

    /// Up one row, scrolling the region down at its top.
    pub fn reverse_index(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.row == self.top {
            self.scroll_down(1);
        } else {
            self.cursor.row = self.cursor.row.saturating_sub(1);
        }
    }

    pub fn carriage_return(&mut self) {
        self.cursor.col = 0;
        self.cursor.pending_wrap = false;
    }

    pub fn backspace(&mut self) {
        self.cursor.col = self.cursor.col.saturating_sub(1);
        self.cursor.pending_wrap = false;
    }

    /// To the next tab stop (every eighth column), at most the last column.
    pub fn tab(&mut self) {
        self.cursor.col = ((self.cursor.col / 8 + 1) * 8).min(self.cols - 1);
    }

    /// The region's lines move up by `n`; blank lines come in at its bottom.
    pub fn scroll_up(&mut self, n: usize) {
        let n = n.min(self.bottom + 1 - self.top);
        self.lines[self.top..=self.bottom].rotate_left(n);
        for line in &mut self.lines[self.bottom + 1 - n..=self.bottom] {
            line.fill(BLANK);
        }
    }

    pub fn scroll_down(&mut self, n: usize) {
        let n = n.min(self.bottom + 1 - self.top);
        self.lines[self.top..=self.bottom].rotate_right(n);
        for line in &mut self.lines[self.top..self.top + n] {
            line.fill(BLANK);
        }
    }

    /// Moves the cursor to a 0-based position (rows relative to the region under origin mode), clamped.
    pub fn goto(&mut self, row: usize, col: usize) {
        let (first, last) = if self.origin {
            (self.top, self.bottom)
        } else {
            (0, self.rows() - 1)
        };
        self.cursor = Cursor {
            row: (first + row).min(last),
            col: col.min(self.cols - 1),
            pending_wrap: false,
        };
    }

    /// Moves by rows, stopping at the region's edge when it starts inside the region, else at the screen's.
    pub fn move_rows(&mut self, by: isize) {
        let row = self.cursor.row;
        let (first, last) = if (self.top..=self.bottom).contains(&row) {
            (self.top, self.bottom)
        } else {
            (0, self.rows() - 1)
        };
        self.cursor.row = row.saturating_add_signed(by).clamp(first, last);
        self.cursor.pending_wrap = false;
    }

    pub fn move_cols(&mut self, by: isize) {
        self.cursor.col = self.cursor.col.saturating_add_signed(by).min(self.cols - 1);
        self.cursor.pending_wrap = false;
    }

    pub fn set_col(&mut self, col: usize) {
        self.cursor.col = col.min(self.cols - 1);
        self.cursor.pending_wrap = false;
    }

    pub fn set_row(&mut self, row: usize) {
        let col = self.cursor.col;
        self.goto(row, col);
    }

    /// ED: 0 from the cursor to the end, 1 from the start to the cursor, 2 and 3 all.
    pub fn erase_display(&mut self, how: u16) {
        let Cursor { row, .. } = self.cursor;
        match how {
            0 => {
                self.erase_line(0);
                self.lines[row + 1..].iter_mut().for_each(|l| l.fill(BLANK));
            }
            1 => {
                self.erase_line(1);
                self.lines[..row].iter_mut().for_each(|l| l.fill(BLANK));
            }
            _ => self.lines.iter_mut().for_each(|l| l.fill(BLANK)),
        }
    }

    /// EL: 0 from the cursor to the line's end, 1 from its start to the cursor, 2 the whole line.
    pub fn erase_line(&mut self, how: u16) {
        let Cursor { row, col, .. } = self.cursor;
        let line = &mut self.lines[row];
        match how {
            0 => line[col..].fill(BLANK),
            1 => line[..=col].fill(BLANK),
            _ => line.fill(BLANK),
        }
    }

    /// ECH: blanks `n` cells from the cursor on.
    pub fn erase_chars(&mut self, n: usize) {
        let Cursor { row, col, .. } = self.cursor;
        let end = (col + n).min(self.cols);
        self.lines[row][col..end].fill(BLANK);
    }

    /// ICH: `n` blanks at the cursor, the rest of the line moving right.
    pub fn insert_chars(&mut self, n: usize) {
        let Cursor { row, col, .. } = self.cursor;
        let line = &mut self.lines[row][col..];
        let n = n.min(line.len());
        line.rotate_right(n);
        line[..n].fill(BLANK);
    }

    /// DCH: `n` cells at the cursor go, the rest of the line moving left.
    pub fn delete_chars(&mut self, n: usize) {
        let Cursor { row, col, .. } = self.cursor;
        let line = &mut self.lines[row][col..];
        let n = n.min(line.len());
        line.rotate_left(n);
        let len = line.len();
        line[len - n..].fill(BLANK);
    }

    /// IL and DL: lines inserted at, or deleted from, the cursor's row within the region.
    pub fn insert_lines(&mut self, n: usize, insert: bool) {
        let row = self.cursor.row;
        if !(self.top..=self.bottom).contains(&row) {
            return;
        }
        let top = self.top;
        self.top = row;
        if insert {
            self.scroll_down(n);
        } else {
            self.scroll_up(n);
        }
        self.top = top;
        self.cursor.col = 0;
        self.cursor.pending_wrap = false;
    }

    /// DECSTBM: the scrolling region, 1-based rows (0: the default); the cursor goes home.
    pub fn set_region(&mut self, top: u16, bottom: u16) {
        let rows = self.rows();
        let top = usize::from(top.max(1)) - 1;
        let bottom = if bottom == 0 {
            rows
        } else {
            usize::from(bottom).min(rows)
        } - 1;
        if top < bottom {
            self.top = top;
            self.bottom = bottom;
            self.goto(0, 0);
        }
    }

    pub fn save_cursor(&mut self) {
        self.saved = self.cursor;
    }

    pub fn restore_cursor(&mut self) {
        self.cursor = self.saved;
        self.cursor.row = self.cursor.row.min(self.rows() - 1);
        self.cursor.col = self.cursor.col.min(self.cols - 1);
    }

    /// A new size: rows leave from the top while the cursor would fall below it; lines are cut or padded.
    pub fn resize(&mut self, cols: usize, rows: usize) {
        let over = (self.cursor.row + 1).saturating_sub(rows);
        self.lines.drain(..over.min(self.lines.len()));
        self.lines.resize(rows, vec![BLANK; cols]);
        for line in &mut self.lines {
            line.resize(cols, BLANK);
        }
        self.cols = cols;
        self.cursor.row -= over;
        self.cursor.col = self.cursor.col.min(cols - 1);
        self.cursor.pending_wrap = false;
        self.top = 0;
        self.bottom = rows - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(grid: &mut Grid, text: &str) {
        for c in text.chars() {
            match c {
                '\n' => grid.linefeed(),
                '\r' => grid.carriage_return(),
                c => grid.print(c),
            }
        }
    }

    #[test]
    fn printing_wraps_and_scrolls() {
        let mut grid = Grid::new(4, 2);
        printed(&mut grid, "abcdef\r\ngh");
        assert_eq!(grid.text(), ["ef", "gh"]);
        assert_eq!(
            grid.cursor,
            Cursor {
                row: 1,
                col: 2,
                pending_wrap: false
            }
        );
    }

    #[test]
    fn the_last_column_waits_to_wrap() {
        let mut grid = Grid::new(3, 2);
        printed(&mut grid, "abc");
        assert_eq!(
            grid.cursor,
            Cursor {
                row: 0,
                col: 2,
                pending_wrap: true
            }
        );
        grid.carriage_return();
        printed(&mut grid, "x");
        assert_eq!(grid.text(), ["xbc", ""]);
    }

    #[test]
    fn wide_characters_take_two_cells() {
        let mut grid = Grid::new(5, 2);
        printed(&mut grid, "a日本");
        assert_eq!(grid.text(), ["a日本", ""]);
        assert_eq!(grid.cursor.col, 4);
        assert!(grid.cursor.pending_wrap);
    }

    #[test]
    fn a_region_scrolls_alone() {
        let mut grid = Grid::new(3, 4);
        printed(&mut grid, "a\r\nb\r\nc\r\nd");
        grid.set_region(2, 3);
        grid.goto(2, 0);
        grid.linefeed();
        assert_eq!(grid.text(), ["a", "c", "", "d"]);
        grid.goto(1, 0);
        grid.insert_lines(1, true);
        assert_eq!(grid.text(), ["a", "", "c", "d"]);
    }

    #[test]
    fn erasing_and_editing_a_line() {
        let mut grid = Grid::new(6, 1);
        printed(&mut grid, "abcdef");
        grid.set_col(2);
        grid.delete_chars(2);
        assert_eq!(grid.text(), ["abef"]);
        grid.insert_chars(1);
        assert_eq!(grid.text(), ["ab ef"]);
        grid.erase_line(0);
        assert_eq!(grid.text(), ["ab"]);
    }

    #[test]
    fn shrinking_keeps_the_cursor_row() {
        let mut grid = Grid::new(4, 4);
        printed(&mut grid, "a\r\nb\r\nc\r\nd");
        grid.resize(2, 2);
        assert_eq!(grid.text(), ["c", "d"]);
        assert_eq!(grid.cursor.row, 1);
    }
}
