//! UTF-8 boundary rules shared by the tail, the ring and every reader (README "UTF-8 rules").
//!
//! These work on raw bytes and never validate: output is whatever a process printed, so the rules only
//! avoid splitting a sequence that looks well formed and leave everything else alone.

/// A byte of the form `10xxxxxx`.
#[inline]
pub fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The length a lead byte announces; continuation bytes and `11111xxx` count as lone bytes.
#[inline]
pub fn sequence_length(b: u8) -> usize {
    if b & 0x80 == 0 {
        1
    } else if b & 0xE0 == 0xC0 {
        2
    } else if b & 0xF0 == 0xE0 {
        3
    } else if b & 0xF8 == 0xF0 {
        4
    } else {
        1
    }
}

/// Length of the incomplete tail of `s`: the trailing bytes of a sequence whose lead byte announces more
/// bytes than are present. Only the last three bytes can hold such a lead.
pub fn incomplete_tail_len(s: &[u8]) -> usize {
    let n = s.len();
    let lowest = n.saturating_sub(3);
    let mut i = n;
    while i > lowest {
        i -= 1;
        let b = s[i];
        if is_continuation(b) {
            continue;
        }
        let len = sequence_length(b);
        return if len > 1 && n - i < len { n - i } else { 0 };
    }
    0
}

/// Where to cut `s` so that at most `max` bytes are kept without splitting a sequence: the returned `c`
/// makes `s[..c]` the cut. When not even one character fits, the cut moves forward past `max` so that a
/// reader always makes progress; `c` is then at most `max + 3`.
pub fn boundary_cut(s: &[u8], max: usize) -> usize {
    boundary_cut_by(s.len(), max, |i| s[i])
}

/// [`boundary_cut`] over bytes that need not be contiguous (a tail window that wraps): `at(i)` is byte
/// `i` of a string of `len` bytes. Only bytes within three positions of `max` are read.
pub fn boundary_cut_by(len: usize, max: usize, at: impl Fn(usize) -> u8) -> usize {
    if max >= len {
        return len;
    }
    let mut c = max;
    let mut steps = 0;
    while c > 0 && is_continuation(at(c)) && steps < 3 {
        c -= 1;
        steps += 1;
    }
    if c == 0 {
        c = max;
        steps = 0;
        while c < len && is_continuation(at(c)) && steps < 3 {
            c += 1;
            steps += 1;
        }
    }
    c
}

/// How many leading bytes a window that began by dropping bytes skips: up to three continuation bytes,
/// the rest of a sequence whose lead was dropped.
pub fn start_skip(s: &[u8]) -> usize {
    s.iter()
        .take(3)
        .take_while(|&&b| is_continuation(b))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_bytes() {
        assert!(is_continuation(0x80));
        assert!(is_continuation(0xBF));
        assert!(!is_continuation(0x7F));
        assert!(!is_continuation(0xC0));
    }

    #[test]
    fn sequence_lengths() {
        assert_eq!(sequence_length(b'a'), 1);
        assert_eq!(sequence_length(0xC3), 2);
        assert_eq!(sequence_length(0xE2), 3);
        assert_eq!(sequence_length(0xF0), 4);
        assert_eq!(
            sequence_length(0x80),
            1,
            "a continuation byte is a lone byte"
        );
        assert_eq!(sequence_length(0xF8), 1, "11111xxx is a lone byte");
        assert_eq!(sequence_length(0xFF), 1);
    }

    #[test]
    fn incomplete_tail_of_complete_text_is_empty() {
        assert_eq!(incomplete_tail_len(b""), 0);
        assert_eq!(incomplete_tail_len(b"abc"), 0);
        assert_eq!(incomplete_tail_len("é".as_bytes()), 0);
        assert_eq!(incomplete_tail_len("€".as_bytes()), 0);
        assert_eq!(incomplete_tail_len("a😀".as_bytes()), 0);
    }

    #[test]
    fn incomplete_tail_finds_cut_sequences() {
        let e = "€".as_bytes(); // E2 82 AC
        assert_eq!(incomplete_tail_len(&e[..1]), 1);
        assert_eq!(incomplete_tail_len(&e[..2]), 2);
        let g = "😀".as_bytes(); // F0 9F 98 80
        assert_eq!(incomplete_tail_len(&[b'x', g[0]]), 1);
        assert_eq!(incomplete_tail_len(&[b'x', g[0], g[1]]), 2);
        assert_eq!(incomplete_tail_len(&[b'x', g[0], g[1], g[2]]), 3);
    }

    #[test]
    fn incomplete_tail_looks_at_three_bytes_only() {
        // Three continuation bytes and no lead in range: nothing is held back.
        assert_eq!(incomplete_tail_len(&[0xF0, 0x80, 0x80, 0x80]), 0);
        assert_eq!(incomplete_tail_len(&[b'a', 0x80, 0x80, 0x80]), 0);
        // Lone continuation bytes after ASCII are not a sequence.
        assert_eq!(incomplete_tail_len(&[b'a', 0x80]), 0);
        // 11111xxx is a lone byte, never held back.
        assert_eq!(incomplete_tail_len(&[b'a', 0xF8]), 0);
    }

    #[test]
    fn boundary_cut_moves_back_to_a_lead() {
        let s = "a€b".as_bytes(); // 61 E2 82 AC 62
        assert_eq!(boundary_cut(s, 1), 1);
        assert_eq!(boundary_cut(s, 2), 1);
        assert_eq!(boundary_cut(s, 3), 1);
        assert_eq!(boundary_cut(s, 4), 4);
        assert_eq!(boundary_cut(s, 5), 5);
        assert_eq!(boundary_cut(s, 9), 5);
    }

    #[test]
    fn boundary_cut_moves_forward_when_nothing_fits() {
        let s = "😀z".as_bytes();
        assert_eq!(boundary_cut(s, 1), 4);
        assert_eq!(boundary_cut(s, 3), 4);
        let e = "€€".as_bytes();
        assert_eq!(boundary_cut(e, 2), 3);
    }

    #[test]
    fn boundary_cut_takes_at_most_three_steps() {
        // Five continuation bytes: three steps back and still not at a lead, so the cut stays there.
        let s = [b'a', 0x80, 0x80, 0x80, 0x80, 0x80, b'b'];
        assert_eq!(boundary_cut(&s, 5), 2);
        // Forward moves stop after three steps too.
        let t = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80];
        assert_eq!(boundary_cut(&t, 1), 4);
    }

    #[test]
    fn start_skip_drops_at_most_three_continuations() {
        assert_eq!(start_skip(b""), 0);
        assert_eq!(start_skip(b"abc"), 0);
        assert_eq!(start_skip(&[0x82, 0xAC, b'x']), 2);
        assert_eq!(start_skip(&[0x80, 0x80, 0x80, 0x80]), 3);
    }
}
