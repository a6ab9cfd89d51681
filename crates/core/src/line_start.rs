//! Where a tail window that began by dropping bytes starts: at a line boundary when one is near, so a reader
//! never meets the end of a line cut from its start (`334` of `19334`), else past a split character.

use crate::utf8;

/// How far into the window a line boundary is looked for. A window whose first line is longer keeps that
/// line's end rather than losing up to this many bytes of a single long line.
pub const LINE_PROBE: usize = 4096;

/// Bytes to skip at the start of a dropped-into window held as two runs `a` then `b` (a tail wraps): past
/// the first `\n` among its first [`LINE_PROBE`] bytes when something follows it, else the UTF-8 start skip.
pub fn window_skip(a: &[u8], b: &[u8]) -> usize {
    let len = a.len() + b.len();
    let in_a = &a[..a.len().min(LINE_PROBE)];
    let in_b = &b[..b.len().min(LINE_PROBE - in_a.len())];
    let newline = match in_a.iter().position(|&c| c == b'\n') {
        Some(i) => Some(i),
        None => in_b
            .iter()
            .position(|&c| c == b'\n')
            .map(|i| in_a.len() + i),
    };
    if let Some(i) = newline.filter(|&i| i + 1 < len) {
        return i + 1;
    }
    let mut first = [0u8; 3];
    let n = len.min(3);
    for (i, slot) in first[..n].iter_mut().enumerate() {
        *slot = if i < a.len() { a[i] } else { b[i - a.len()] };
    }
    utf8::start_skip(&first[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(s: &[u8]) -> usize {
        let whole = window_skip(s, &[]);
        // The same answer wherever the wrap point splits the window.
        for at in 0..=s.len().min(8) {
            assert_eq!(window_skip(&s[..at], &s[at..]), whole);
        }
        whole
    }

    #[test]
    fn starts_after_the_first_newline_within_the_probe() {
        assert_eq!(skip(b"334\nmodule_1.o\n"), 4);
        assert_eq!(skip(b"\nabc"), 1);
    }

    #[test]
    fn keeps_the_character_rule_without_a_near_newline() {
        assert_eq!(skip(&[0x82, 0xAC, b'x']), 2);
        let mut long = vec![b'a'; LINE_PROBE];
        long.extend_from_slice(b"\nb");
        assert_eq!(skip(&long), 0);
    }

    #[test]
    fn never_empties_a_window_whose_only_newline_ends_it() {
        assert_eq!(skip(&[0x82, b'a', b'\n']), 1);
        assert_eq!(skip(b"\n"), 0);
    }

    #[test]
    fn a_newline_at_the_last_probed_byte_counts() {
        let mut s = vec![b'a'; LINE_PROBE - 1];
        s.extend_from_slice(b"\nb");
        assert_eq!(skip(&s), LINE_PROBE);
    }
}
