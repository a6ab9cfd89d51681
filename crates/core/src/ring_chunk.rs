//! What a ring holds and what its reads report: chunks, their kinds, segments and read metadata. Shared by
//! the ring and its read views, so neither has to import the other's internals.

/// What produced a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    Stdout,
    Stderr,
    /// Text the job runtime adds itself; stored as given, never held back.
    Log,
}

impl ChunkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkKind::Stdout => "stdout",
            ChunkKind::Stderr => "stderr",
            ChunkKind::Log => "log",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "stdout" => Some(ChunkKind::Stdout),
            "stderr" => Some(ChunkKind::Stderr),
            "log" => Some(ChunkKind::Log),
            _ => None,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

#[derive(Debug)]
pub(crate) struct Chunk {
    pub offset: u64,
    pub kind: ChunkKind,
    pub gap: bool,
    pub data: Vec<u8>,
}

impl Chunk {
    pub(crate) fn end(&self) -> u64 {
        self.offset + self.data.len() as u64
    }
}

/// What every read reports besides its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadMeta {
    /// Absolute offset of the first byte returned.
    pub from: u64,
    /// Offset just after the last byte returned.
    pub to: u64,
    /// Bytes between the requested offset and `from` were evicted.
    pub lossy: bool,
    pub total: u64,
    pub earliest: u64,
    pub settled: bool,
}

/// One run of bytes from a single chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub kind: ChunkKind,
    /// Bytes were lost just before this segment's chunk.
    pub gap: bool,
    pub data: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingRead {
    pub segments: Vec<Segment>,
    pub meta: ReadMeta,
}

/// A segment of a read into a caller's buffer: its bytes follow the previous segment's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentLen {
    pub kind: ChunkKind,
    pub gap: bool,
    pub length: usize,
}
