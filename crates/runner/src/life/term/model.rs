//! The runner's model of its terminal: every byte the program writes goes through a VT parser (vte) into a primary
//! and an alternate screen, and the queries programs block on are answered as a terminal would, by bytes the runner
//! writes back as the program's input: cursor position and status (DSR), device attributes (primary and secondary
//! DA), a mode's state (DECRQM), the text area's size (XTWINOPS 18) and the default colours (OSC 10/11/12).

use std::collections::HashSet;

use vte::{Params, Perform};

use super::grid::Grid;
use crate::wire::term::{Screen, Size};

/// Private modes that switch to the alternate screen: 1049 also saves the cursor and clears that screen.
const ALTERNATE: [u16; 3] = [47, 1047, 1049];
/// DA1: a VT220 with ANSI colour; DA2: a VT220, firmware 10.
const PRIMARY_ATTRIBUTES: &[u8] = b"\x1b[?62;22c";
const SECONDARY_ATTRIBUTES: &[u8] = b"\x1b[>1;10;0c";
/// The colours a query of OSC 10 (foreground), 11 (background) and 12 (cursor) is told: light text on black.
const COLOURS: [(&[u8], &str); 3] = [
    (b"10", "rgb:e5e5/e5e5/e5e5"),
    (b"11", "rgb:0000/0000/0000"),
    (b"12", "rgb:e5e5/e5e5/e5e5"),
];

pub struct Model {
    parser: vte::Parser,
    state: State,
}

struct State {
    primary: Grid,
    alternate: Grid,
    on_alternate: bool,
    /// Private (DEC) modes set now, for DECRQM.
    modes: HashSet<u16>,
    /// Bytes to write back to the program, in the order its queries came.
    replies: Vec<u8>,
}

impl Model {
    pub fn new(size: Size) -> Model {
        let (cols, rows) = (usize::from(size.cols), usize::from(size.rows));
        Model {
            parser: vte::Parser::new(),
            state: State {
                primary: Grid::new(cols, rows),
                alternate: Grid::new(cols, rows),
                on_alternate: false,
                modes: HashSet::from([7, 25]),
                replies: Vec::new(),
            },
        }
    }

    /// Takes what the program wrote.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.advance(&mut self.state, bytes);
    }

    /// The answers to the queries fed so far, taken.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.state.replies)
    }

    pub fn resize(&mut self, size: Size) {
        let (cols, rows) = (usize::from(size.cols), usize::from(size.rows));
        self.state.primary.resize(cols, rows);
        self.state.alternate.resize(cols, rows);
    }

    pub fn screen(&self) -> Screen {
        let grid = self.state.grid();
        let cursor = grid.cursor;
        Screen {
            size: Size {
                cols: grid.cols() as u16,
                rows: grid.rows() as u16,
            },
            alternate: self.state.on_alternate,
            cursor_row: cursor.row as u16,
            cursor_col: cursor.col as u16,
            rows: grid.text(),
        }
    }
}

impl State {
    fn grid(&self) -> &Grid {
        if self.on_alternate {
            &self.alternate
        } else {
            &self.primary
        }
    }

    fn grid_mut(&mut self) -> &mut Grid {
        if self.on_alternate {
            &mut self.alternate
        } else {
            &mut self.primary
        }
    }

    fn reply(&mut self, bytes: &[u8]) {
        self.replies.extend_from_slice(bytes);
    }

    fn set_mode(&mut self, mode: u16, on: bool) {
        if ALTERNATE.contains(&mode) {
            if on == self.on_alternate {
                return;
            }
            if mode == 1049 && on {
                self.primary.save_cursor();
            }
            self.on_alternate = on;
            if mode == 1049 && on {
                self.alternate.erase_display(2);
                self.alternate.cursor = self.primary.cursor;
            }
            if mode == 1049 && !on {
                self.primary.restore_cursor();
            }
        }
        match mode {
            6 => {
                self.grid_mut().origin = on;
                self.grid_mut().goto(0, 0);
            }
            7 => self.grid_mut().autowrap = on,
            1048 if on => self.grid_mut().save_cursor(),
            1048 => self.grid_mut().restore_cursor(),
            _ => {}
        }
        if on {
            self.modes.insert(mode);
        } else {
            self.modes.remove(&mode);
        }
    }

    /// The queries of a CSI sequence (DSR, DA, DECRQM, XTWINOPS); true when it was one.
    fn query(&mut self, params: &[u16], intermediates: &[u8], action: char) -> bool {
        let first = params.first().copied().unwrap_or(0);
        let cursor = self.grid().cursor;
        let answer = match (intermediates, action, first) {
            ([], 'n', 5) => b"\x1b[0n".to_vec(),
            ([], 'n', 6) => format!("\x1b[{};{}R", cursor.row + 1, cursor.col + 1).into_bytes(),
            ([b'?'], 'n', 6) => {
                format!("\x1b[?{};{}R", cursor.row + 1, cursor.col + 1).into_bytes()
            }
            ([], 'c', 0) => PRIMARY_ATTRIBUTES.to_vec(),
            ([b'>'], 'c', 0) => SECONDARY_ATTRIBUTES.to_vec(),
            ([b'?', b'$'], 'p', mode) => {
                let state = if self.modes.contains(&mode) { 1 } else { 2 };
                format!("\x1b[?{mode};{state}$y").into_bytes()
            }
            ([b'$'], 'p', mode) => format!("\x1b[{mode};0$y").into_bytes(),
            ([], 't', 18) => {
                let grid = self.grid();
                format!("\x1b[8;{};{}t", grid.rows(), grid.cols()).into_bytes()
            }
            _ => return false,
        };
        self.reply(&answer);
        true
    }
}

/// Each parameter's first value, 0 where it was left out.
fn values(params: &Params) -> Vec<u16> {
    params
        .iter()
        .map(|p| p.first().copied().unwrap_or(0))
        .collect()
}

/// The n-th parameter, `default` where it is missing or 0.
fn arg(params: &[u16], n: usize, default: u16) -> usize {
    usize::from(match params.get(n).copied().unwrap_or(0) {
        0 => default,
        v => v,
    })
}

impl Perform for State {
    fn print(&mut self, c: char) {
        self.grid_mut().print(c);
    }

    fn execute(&mut self, byte: u8) {
        let grid = self.grid_mut();
        match byte {
            0x08 => grid.backspace(),
            0x09 => grid.tab(),
            0x0a..=0x0c => grid.linefeed(),
            0x0d => grid.carriage_return(),
            _ => {}
        }
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], _ignore: bool, byte: u8) {
        if !intermediates.is_empty() {
            return;
        }
        let grid = self.grid_mut();
        match byte {
            b'7' => grid.save_cursor(),
            b'8' => grid.restore_cursor(),
            b'D' => grid.linefeed(),
            b'E' => {
                grid.carriage_return();
                grid.linefeed();
            }
            b'M' => grid.reverse_index(),
            b'c' => {
                let (cols, rows) = (grid.cols(), grid.rows());
                self.primary = Grid::new(cols, rows);
                self.alternate = Grid::new(cols, rows);
                self.on_alternate = false;
                self.modes = HashSet::from([7, 25]);
            }
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], _ignore: bool, action: char) {
        let params = values(params);
        if self.query(&params, intermediates, action) {
            return;
        }
        if let ([b'?'], 'h' | 'l') = (intermediates, action) {
            for &mode in &params {
                self.set_mode(mode, action == 'h');
            }
            return;
        }
        if !intermediates.is_empty() {
            return;
        }
        let n = |default| arg(&params, 0, default);
        let grid = self.grid_mut();
        match action {
            'A' => grid.move_rows(-(n(1) as isize)),
            'B' | 'e' => grid.move_rows(n(1) as isize),
            'C' | 'a' => grid.move_cols(n(1) as isize),
            'D' => grid.move_cols(-(n(1) as isize)),
            'E' => {
                grid.move_rows(n(1) as isize);
                grid.carriage_return();
            }
            'F' => {
                grid.move_rows(-(n(1) as isize));
                grid.carriage_return();
            }
            'G' | '`' => grid.set_col(n(1) - 1),
            'd' => grid.set_row(n(1) - 1),
            'H' | 'f' => grid.goto(n(1) - 1, arg(&params, 1, 1) - 1),
            'J' => grid.erase_display(n(0) as u16),
            'K' => grid.erase_line(n(0) as u16),
            'X' => grid.erase_chars(n(1)),
            '@' => grid.insert_chars(n(1)),
            'P' => grid.delete_chars(n(1)),
            'L' => grid.insert_lines(n(1), true),
            'M' => grid.insert_lines(n(1), false),
            'S' => grid.scroll_up(n(1)),
            'T' => grid.scroll_down(n(1)),
            'r' => grid.set_region(
                params.first().copied().unwrap_or(0),
                params.get(1).copied().unwrap_or(0),
            ),
            's' => grid.save_cursor(),
            'u' => grid.restore_cursor(),
            _ => {}
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        let [number, b"?"] = params else {
            return;
        };
        let Some((_, colour)) = COLOURS.iter().find(|(n, _)| n == number) else {
            return;
        };
        let end: &[u8] = if bell_terminated { b"\x07" } else { b"\x1b\\" };
        let mut answer = b"\x1b]".to_vec();
        answer.extend_from_slice(number);
        answer.push(b';');
        answer.extend_from_slice(colour.as_bytes());
        answer.extend_from_slice(end);
        self.reply(&answer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        Model::new(Size { cols: 20, rows: 5 })
    }

    #[test]
    fn the_cursor_position_is_answered_where_it_was_asked() {
        let mut m = model();
        m.feed(b"ab\x1b[6nc\r\n\x1b[6n");
        assert_eq!(m.take_replies(), b"\x1b[1;3R\x1b[2;1R");
        assert!(m.take_replies().is_empty());
    }

    #[test]
    fn device_attributes_status_modes_and_size() {
        let mut m = model();
        m.feed(b"\x1b[c\x1b[>c\x1b[5n\x1b[?2004h\x1b[?2004$p\x1b[?1$p\x1b[18t\x1b[?u");
        assert_eq!(
            m.take_replies(),
            b"\x1b[?62;22c\x1b[>1;10;0c\x1b[0n\x1b[?2004;1$y\x1b[?1;2$y\x1b[8;5;20t"
        );
    }

    #[test]
    fn colour_queries_end_as_they_were_asked() {
        let mut m = model();
        m.feed(b"\x1b]11;?\x07\x1b]10;?\x1b\\");
        assert_eq!(
            m.take_replies(),
            b"\x1b]11;rgb:0000/0000/0000\x07\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\"
        );
    }

    #[test]
    fn a_full_screen_program_draws_on_the_alternate_screen_and_leaves_it() {
        let mut m = model();
        m.feed(b"$ vim\r\n\x1b[?1049h\x1b[H\x1b[2J~\r\n~\x1b[5;1H:wq");
        let screen = m.screen();
        assert!(screen.alternate);
        assert_eq!(screen.rows, ["~", "~", "", "", ":wq"]);
        m.feed(b"\x1b[?1049l");
        let screen = m.screen();
        assert!(!screen.alternate);
        assert_eq!(screen.rows[0], "$ vim");
        assert_eq!((screen.cursor_row, screen.cursor_col), (1, 0));
    }

    #[test]
    fn a_progress_line_is_drawn_over() {
        let mut m = model();
        m.feed(b"10%\r20%\r\x1b[K30%\r\n");
        assert_eq!(m.screen().rows[0], "30%");
    }

    #[test]
    fn a_resize_keeps_the_text_that_fits() {
        let mut m = model();
        m.feed(b"hello world");
        m.resize(Size { cols: 5, rows: 2 });
        let screen = m.screen();
        assert_eq!(screen.rows, ["hello", ""]);
        assert_eq!(screen.size, Size { cols: 5, rows: 2 });
        m.feed(b"\x1b[18t");
        assert_eq!(m.take_replies(), b"\x1b[8;2;5t");
    }
}
