//! The JS-facing object shapes of the binding and their conversions from the core's types.

use napi::bindgen_prelude::{Buffer, Either};
use napi_derive::napi;
use shellring_core::{
    CaptureOptions, ReadMeta, RingOptions, RingRead, RingReadInto, RingState, StreamInfo,
};

use crate::guard::{count, num, size, Result};

#[napi(object)]
pub struct NativeRingOptions {
    pub live_limit: Option<f64>,
    pub settled_limit: Option<f64>,
}

#[napi(object)]
pub struct NativeCaptureOptions {
    pub stdout_cap: Option<f64>,
    pub stderr_cap: Option<f64>,
    pub spill_dir: Option<String>,
    pub spill_name: Option<String>,
    pub spill_cap: Option<f64>,
    pub ring: Option<Either<bool, NativeRingOptions>>,
}

impl NativeCaptureOptions {
    pub fn into_core(self) -> Result<CaptureOptions> {
        let defaults = CaptureOptions::default();
        let ring = match self.ring {
            None | Some(Either::A(false)) => None,
            Some(Either::A(true)) => Some(RingOptions::default()),
            Some(Either::B(limits)) => {
                let d = RingOptions::default();
                Some(RingOptions {
                    live_limit: limits
                        .live_limit
                        .map(|v| size("ring.liveLimit", v))
                        .transpose()?
                        .unwrap_or(d.live_limit),
                    settled_limit: limits
                        .settled_limit
                        .map(|v| size("ring.settledLimit", v))
                        .transpose()?
                        .unwrap_or(d.settled_limit),
                })
            }
        };
        Ok(CaptureOptions {
            stdout_cap: self
                .stdout_cap
                .map(|v| size("stdoutCap", v))
                .transpose()?
                .unwrap_or(defaults.stdout_cap),
            stderr_cap: self
                .stderr_cap
                .map(|v| size("stderrCap", v))
                .transpose()?
                .unwrap_or(defaults.stderr_cap),
            spill_dir: self.spill_dir.map(Into::into),
            spill_name: self.spill_name,
            spill_cap: self
                .spill_cap
                .map(|v| count("spillCap", v))
                .transpose()?
                .unwrap_or(defaults.spill_cap),
            ring,
        })
    }
}

#[napi(object)]
pub struct NativeStreamInfo {
    pub total: f64,
    pub retained: f64,
    pub truncated: bool,
    /// `none`, `active`, `complete` or `unavailable`.
    pub spill: String,
    pub spill_path: Option<String>,
}

impl From<StreamInfo> for NativeStreamInfo {
    fn from(i: StreamInfo) -> Self {
        NativeStreamInfo {
            total: num(i.total),
            retained: i.retained as f64,
            truncated: i.truncated,
            spill: i.spill.as_str().to_owned(),
            spill_path: i.spill_path.map(|p| p.to_string_lossy().into_owned()),
        }
    }
}

#[napi(object)]
pub struct NativeObserveResult {
    pub data: Buffer,
    pub from: f64,
    pub next: f64,
    pub lossy: bool,
}

#[napi(object)]
pub struct NativeRingSegment {
    /// `stdout`, `stderr` or `log`.
    pub kind: String,
    pub gap: bool,
    pub data: Buffer,
}

#[napi(object)]
pub struct NativeRingRead {
    pub segments: Vec<NativeRingSegment>,
    pub from: f64,
    pub to: f64,
    pub lossy: bool,
    pub total: f64,
    pub earliest: f64,
    pub settled: bool,
}

impl From<RingRead> for NativeRingRead {
    fn from(r: RingRead) -> Self {
        let ReadMeta {
            from,
            to,
            lossy,
            total,
            earliest,
            settled,
        } = r.meta;
        NativeRingRead {
            segments: r
                .segments
                .into_iter()
                .map(|s| NativeRingSegment {
                    kind: s.kind.as_str().to_owned(),
                    gap: s.gap,
                    data: s.data.into(),
                })
                .collect(),
            from: num(from),
            to: num(to),
            lossy,
            total: num(total),
            earliest: num(earliest),
            settled,
        }
    }
}

#[napi(object)]
pub struct NativeSegmentLength {
    pub kind: String,
    pub gap: bool,
    pub length: f64,
}

#[napi(object)]
pub struct NativeRingReadInto {
    pub bytes: f64,
    pub segments: Vec<NativeSegmentLength>,
    pub from: f64,
    pub to: f64,
    pub lossy: bool,
    pub total: f64,
    pub earliest: f64,
    pub settled: bool,
}

impl From<RingReadInto> for NativeRingReadInto {
    fn from(r: RingReadInto) -> Self {
        let ReadMeta {
            from,
            to,
            lossy,
            total,
            earliest,
            settled,
        } = r.meta;
        NativeRingReadInto {
            bytes: r.bytes as f64,
            segments: r
                .segments
                .into_iter()
                .map(|s| NativeSegmentLength {
                    kind: s.kind.as_str().to_owned(),
                    gap: s.gap,
                    length: s.length as f64,
                })
                .collect(),
            from: num(from),
            to: num(to),
            lossy,
            total: num(total),
            earliest: num(earliest),
            settled,
        }
    }
}

#[napi(object)]
pub struct NativeRingState {
    pub total: f64,
    pub earliest: f64,
    pub consumer: f64,
    pub settled: bool,
    pub terminal_read: bool,
    pub retained: f64,
}

impl From<RingState> for NativeRingState {
    fn from(s: RingState) -> Self {
        NativeRingState {
            total: num(s.total),
            earliest: num(s.earliest),
            consumer: num(s.consumer),
            settled: s.settled,
            terminal_read: s.terminal_read,
            retained: num(s.retained),
        }
    }
}
