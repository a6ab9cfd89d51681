//! The frames of `--stdio`, both ways over one byte stream: a little-endian u32 length of what follows, one kind
//! byte, the command's id as a little-endian u32, then the payload. The runner's server writes and splits them
//! (crates/runner/src/stdio), the binding's channel relay reads them (crates/node/src/channel_relay.rs), and the host
//! writes those to the runner (src/executor/wire/frames.ts).

/// Bytes before the payload: length, kind, id.
pub const HEADER: usize = 9;
/// The largest frame accepted (a request with its stdin is the largest); only stops a corrupt length.
pub const MAX_FRAME: usize = 256 << 20;

/// To the runner: start a command (payload: a request record's body, see `request`).
pub const START: u8 = b'S';
/// To the runner: one control line for the command's runner (see `control`), without its newline.
pub const CONTROL: u8 = b'C';
/// To the runner: drop the command's lifeline (its runner kills what is left and exits).
pub const RELEASE: u8 = b'R';
/// From the runner: stdout bytes.
pub const STDOUT: u8 = b'O';
/// From the runner: stderr bytes.
pub const STDERR: u8 = b'E';
/// From the runner: one status line of the command's runner (see `status`), without its newline. Its `over` line
/// comes after the command's last output frame.
pub const STATUS: u8 = b'T';
/// From the runner: the command's runner has exited; nothing more comes for this id.
pub const GONE: u8 = b'G';
/// Both ways: to the runner, a request for what the command's processes wait on; from it, the answer (`look`).
pub const LOOK: u8 = b'L';

/// Every kind by the name the host gives it, and who sends it: `runner` (to it), `host` (to the host) or `both`.
pub const KINDS: &[(&str, u8, &str)] = &[
    ("start", START, "runner"),
    ("control", CONTROL, "runner"),
    ("release", RELEASE, "runner"),
    ("stdout", STDOUT, "host"),
    ("stderr", STDERR, "host"),
    ("status", STATUS, "host"),
    ("gone", GONE, "host"),
    ("look", LOOK, "both"),
];

/// A frame's header, read.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Header {
    pub kind: u8,
    pub id: u32,
    /// Bytes of payload that follow.
    pub payload: usize,
}

impl Header {
    /// The header's bytes.
    pub fn bytes(&self) -> [u8; HEADER] {
        let mut header = [0u8; HEADER];
        header[..4].copy_from_slice(&((self.payload + 5) as u32).to_le_bytes());
        header[4] = self.kind;
        header[5..].copy_from_slice(&self.id.to_le_bytes());
        header
    }

    /// The length word (the first four bytes) alone, checked.
    ///
    /// # Errors
    /// A length shorter than a kind and an id, or larger than `MAX_FRAME`: the stream is corrupt and cannot be
    /// resynchronised.
    pub fn length(word: [u8; 4]) -> Result<usize, String> {
        let length = u32::from_le_bytes(word) as usize;
        if !(5..=MAX_FRAME).contains(&length) {
            return Err(format!("a frame of {length} bytes"));
        }
        Ok(length)
    }

    /// # Errors
    /// As `length`.
    pub fn parse(bytes: &[u8; HEADER]) -> Result<Header, String> {
        let word = |at: usize| [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        let length = Header::length(word(0))?;
        Ok(Header {
            kind: bytes[4],
            id: u32::from_le_bytes(word(5)),
            payload: length - 5,
        })
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: u8,
    pub id: u32,
    pub payload: Vec<u8>,
}

/// One frame's bytes.
pub fn encode(kind: u8, id: u32, payload: &[u8]) -> Vec<u8> {
    let header = Header {
        kind,
        id,
        payload: payload.len(),
    };
    let mut frame = Vec::with_capacity(HEADER + payload.len());
    frame.extend_from_slice(&header.bytes());
    frame.extend_from_slice(payload);
    frame
}

/// Splits whole frames off the front of `buffer`, leaving a partial one in place.
///
/// # Errors
/// A corrupt length (see `Header::length`).
pub fn split(buffer: &mut Vec<u8>) -> Result<Vec<Frame>, String> {
    let mut frames = Vec::new();
    let mut at = 0;
    while buffer.len() - at >= HEADER {
        let header: &[u8; HEADER] = buffer[at..at + HEADER].try_into().expect("a header");
        let Header { kind, id, payload } = Header::parse(header)?;
        if buffer.len() - at - HEADER < payload {
            break;
        }
        let body = &buffer[at + HEADER..at + HEADER + payload];
        frames.push(Frame {
            kind,
            id,
            payload: body.to_vec(),
        });
        at += HEADER + payload;
    }
    // A length word alone is judged as soon as it is whole: garbage fails at once, not when more bytes come.
    if buffer.len() - at >= 4 {
        Header::length(buffer[at..at + 4].try_into().expect("4 bytes"))?;
    }
    buffer.drain(..at);
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_whole_and_keep_the_partial_rest() {
        let mut stream = encode(STDOUT, 7, b"hello");
        stream.extend(encode(GONE, u32::MAX, b""));
        let second = encode(STATUS, 1, b"exit 0");
        stream.extend_from_slice(&second[..6]);
        let frames = split(&mut stream).unwrap();
        assert_eq!(
            frames,
            [
                Frame {
                    kind: STDOUT,
                    id: 7,
                    payload: b"hello".to_vec()
                },
                Frame {
                    kind: GONE,
                    id: u32::MAX,
                    payload: vec![]
                }
            ]
        );
        assert_eq!(stream, second[..6]);
        stream.extend_from_slice(&second[6..]);
        assert_eq!(
            split(&mut stream).unwrap(),
            [Frame {
                kind: STATUS,
                id: 1,
                payload: b"exit 0".to_vec()
            }]
        );
        assert!(stream.is_empty());
    }

    #[test]
    fn a_corrupt_length_is_refused() {
        assert_eq!(
            split(&mut vec![1, 0, 0, 0, b'O']).unwrap_err(),
            "a frame of 1 bytes"
        );
        assert_eq!(
            split(&mut u32::MAX.to_le_bytes().to_vec()).unwrap_err(),
            "a frame of 4294967295 bytes"
        );
        let header = Header {
            kind: LOOK,
            id: 3,
            payload: 12,
        };
        assert_eq!(Header::parse(&header.bytes()), Ok(header));
    }

    #[test]
    fn kinds_are_distinct() {
        let mut bytes: Vec<u8> = KINDS.iter().map(|(_, kind, _)| *kind).collect();
        bytes.sort_unstable();
        bytes.dedup();
        assert_eq!(bytes.len(), KINDS.len());
    }
}
