//! Reading the channel's frames as their bytes come, whatever pieces they come in: output goes to its capture as it
//! arrives, never gathered; every other frame is gathered whole for JavaScript.

use shellring_core::{registry, Stream};
use shellring_wire::frames::{Header, HEADER, STDERR, STDOUT};

use super::{Relay, READ};

/// Where the frame being read goes.
pub(super) enum Body {
    /// Reading a header: `have` of its bytes so far.
    Header { have: usize },
    /// Output for a capture (none: a command not routed here), `left` bytes of it still to come.
    Output {
        capture: Option<u64>,
        stream: Stream,
        left: usize,
    },
    /// Any other frame, gathered whole for JavaScript.
    Other {
        kind: u8,
        id: u32,
        payload: Vec<u8>,
        left: usize,
    },
}

pub(super) struct Parser {
    header: [u8; HEADER],
    body: Body,
}

impl Parser {
    pub(super) fn new() -> Self {
        Parser {
            header: [0; HEADER],
            body: Body::Header { have: 0 },
        }
    }

    /// Consumes `bytes`; output goes to its capture as it arrives, never gathered. Errs on a corrupt length.
    pub(super) fn feed(
        &mut self,
        relay: &Relay,
        mut bytes: &[u8],
    ) -> std::result::Result<(), String> {
        while !bytes.is_empty() {
            match &mut self.body {
                Body::Header { have } => {
                    let n = (HEADER - *have).min(bytes.len());
                    self.header[*have..*have + n].copy_from_slice(&bytes[..n]);
                    let before = *have;
                    *have += n;
                    bytes = &bytes[n..];
                    // A length no runner writes is refused as soon as it is whole: garbage never waits for more.
                    if before < 4 && *have >= 4 {
                        Header::length(self.header[..4].try_into().expect("4 bytes"))?;
                    }
                    if *have == HEADER {
                        self.body = self.begin(relay)?;
                    }
                }
                Body::Output {
                    capture,
                    stream,
                    left,
                } => {
                    let n = (*left).min(bytes.len());
                    if let Some(capture) = capture {
                        // A capture freed early (its handle released) takes nothing more: the bytes go nowhere.
                        let _ = registry::write(*capture, *stream, &bytes[..n]);
                    }
                    *left -= n;
                    bytes = &bytes[n..];
                }
                Body::Other {
                    kind,
                    id,
                    payload,
                    left,
                } => {
                    let n = (*left).min(bytes.len());
                    payload.extend_from_slice(&bytes[..n]);
                    *left -= n;
                    bytes = &bytes[n..];
                    if *left == 0 {
                        relay.push((*kind, *id, std::mem::take(payload)));
                    }
                }
            }
            if matches!(
                self.body,
                Body::Output { left: 0, .. } | Body::Other { left: 0, .. }
            ) {
                self.body = Body::Header { have: 0 };
            }
        }
        Ok(())
    }

    /// How many bytes finish what is being read (a header, or a frame's payload up to `READ`): the next read takes
    /// exactly those, so an output frame reaches its capture in one write, and the capture copies into its tail only
    /// the newest bytes of each frame rather than of every piece the channel happened to deliver.
    pub(super) fn wanted(&self) -> usize {
        match &self.body {
            // The length word first, alone: it is judged before anything else is waited for.
            Body::Header { have } if *have < 4 => 4 - have,
            Body::Header { have } => HEADER - have,
            Body::Output { left, .. } | Body::Other { left, .. } => (*left).min(READ),
        }
    }

    fn begin(&self, relay: &Relay) -> std::result::Result<Body, String> {
        let Header { kind, id, payload } = Header::parse(&self.header)?;
        let stream = match kind {
            STDOUT => Stream::Stdout,
            STDERR => Stream::Stderr,
            _ if payload == 0 => {
                relay.push((kind, id, Vec::new()));
                return Ok(Body::Header { have: 0 });
            }
            _ => {
                return Ok(Body::Other {
                    kind,
                    id,
                    payload: Vec::with_capacity(payload),
                    left: payload,
                })
            }
        };
        Ok(Body::Output {
            capture: relay.route(id),
            stream,
            left: payload,
        })
    }
}
