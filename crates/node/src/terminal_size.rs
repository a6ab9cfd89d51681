//! The size of a terminal as the kernel holds it now, for `shellring run --tty`: Node's own figure is updated only
//! when its SIGWINCH handler runs, which may come after keystrokes typed after the resize.

// napi-rs registers module exports only outside `cfg(test)`, so there nothing here is reachable.
#![cfg_attr(test, allow(dead_code))]

use napi_derive::napi;

/// Columns and rows of a terminal.
#[napi(object)]
pub struct TerminalSize {
    pub cols: u32,
    pub rows: u32,
}

/// The size of the terminal `fd` refers to (TIOCGWINSZ); none when `fd` is not a terminal.
#[napi]
pub fn terminal_size(fd: i32) -> Option<TerminalSize> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one winsize into `size`, which lives for the call.
    if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } != 0 {
        return None;
    }
    Some(TerminalSize {
        cols: u32::from(size.ws_col),
        rows: u32::from(size.ws_row),
    })
}
