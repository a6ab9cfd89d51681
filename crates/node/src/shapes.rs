//! The JS-facing object shapes of the binding (options in, stream info out) and their conversions; reads
//! return numbers in tables instead (see `tables`).

use napi::bindgen_prelude::Either;
use napi_derive::napi;
use shellring_core::{CaptureOptions, RingOptions, StreamInfo};

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
