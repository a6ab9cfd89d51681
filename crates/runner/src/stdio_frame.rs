//! The frames of `--stdio`, both ways over one byte stream: a little-endian u32 length of what follows, one kind
//! byte, the command's id as a little-endian u32, then the payload.
//!
//! To the runner: `S` start (payload: a request body as `request::parse` reads it), `K` signal the command's
//! process group (payload: the signal number in decimal), `R` release (drop the command's lifeline: its runner kills
//! what is left and exits), `D` drained (stop forwarding its output).
//! From the runner: `O` stdout bytes, `E` stderr bytes, `T` one status line of its runner (as on fd 3, without the
//! newline), `X` the output is over (payload: how many processes the command left running, in decimal), `G` the
//! runner has exited: nothing more comes for this id.
//! Both ways: `L` look; to the runner, a request for what the command's processes wait on; from it, the answer (a
//! snapshot of their /proc files, see `stdio_look`).

/// Bytes before the payload: length, kind, id.
pub const HEADER: usize = 9;
/// The largest frame accepted (a request with its stdin is the largest); only stops a corrupt length.
pub const MAX_FRAME: usize = 256 << 20;

pub const START: u8 = b'S';
pub const SIGNAL: u8 = b'K';
pub const RELEASE: u8 = b'R';
pub const DRAINED: u8 = b'D';
pub const STDOUT: u8 = b'O';
pub const STDERR: u8 = b'E';
pub const STATUS: u8 = b'T';
pub const OUTPUT_OVER: u8 = b'X';
pub const GONE: u8 = b'G';
pub const LOOK: u8 = b'L';

#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: u8,
    pub id: u32,
    pub payload: Vec<u8>,
}

/// One frame's bytes.
pub fn encode(kind: u8, id: u32, payload: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(HEADER + payload.len());
    frame.extend_from_slice(&header(kind, id, payload.len()));
    frame.extend_from_slice(payload);
    frame
}

/// The header alone, for a payload that follows it on the stream without passing through memory.
pub fn header(kind: u8, id: u32, payload: usize) -> [u8; HEADER] {
    let mut header = [0u8; HEADER];
    header[..4].copy_from_slice(&((payload + 5) as u32).to_le_bytes());
    header[4] = kind;
    header[5..].copy_from_slice(&id.to_le_bytes());
    header
}

/// Splits whole frames off the front of `buffer`, leaving a partial one in place.
///
/// # Errors
/// A length shorter than a header or larger than `MAX_FRAME`: the stream is corrupt and cannot be resynchronised.
pub fn split(buffer: &mut Vec<u8>) -> Result<Vec<Frame>, String> {
    let mut frames = Vec::new();
    let mut at = 0;
    while buffer.len() - at >= 4 {
        let length = u32::from_le_bytes(buffer[at..at + 4].try_into().expect("4 bytes")) as usize;
        if !(5..=MAX_FRAME).contains(&length) {
            return Err(format!("stdio: a frame of {length} bytes"));
        }
        if buffer.len() - at - 4 < length {
            break;
        }
        let body = &buffer[at + 4..at + 4 + length];
        let id = u32::from_le_bytes(body[1..5].try_into().expect("4 bytes"));
        frames.push(Frame {
            kind: body[0],
            id,
            payload: body[5..].to_vec(),
        });
        at += 4 + length;
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
            "stdio: a frame of 1 bytes"
        );
        assert_eq!(
            split(&mut u32::MAX.to_le_bytes().to_vec()).unwrap_err(),
            "stdio: a frame of 4294967295 bytes"
        );
    }
}
