//! The payload that sends a command with session cgroups to its session's spawner in the fork server
//! (src/executor/wire/request.ts writes it beside the command's descriptors): the `MARK` byte, then the session's
//! cgroups and their limits, each a list of NUL-terminated fields.

use crate::fields::{Fields, Sink, Writer};

/// The first byte of a payload that names its session's cgroups.
pub const MARK: u8 = 2;

/// The cgroups a session's commands are born in, and the limits written to them.
#[derive(Debug, PartialEq, Eq, Clone, Default)]
pub struct Route {
    pub cgroups: Vec<String>,
    pub limits: Vec<String>,
}

impl Route {
    pub fn encode(&self, out: &mut impl Sink) {
        let Route { cgroups, limits } = self;
        out.list("cgroups", cgroups);
        out.list("limits", limits);
    }

    /// The payload, its mark first.
    pub fn payload(&self) -> Vec<u8> {
        let mut out = Writer { body: vec![MARK] };
        self.encode(&mut out);
        out.body
    }

    /// The route a payload names (after `MARK`), or None when it is malformed or names no cgroup.
    pub fn decode(bytes: &[u8]) -> Option<Route> {
        let mut fields = Fields::new(bytes);
        let route = Route {
            cgroups: fields.list().ok()?,
            limits: fields.list().ok()?,
        };
        (fields.rest().is_empty() && !route.cgroups.is_empty()).then_some(route)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_reads_back() {
        let route = Route {
            cgroups: vec!["/cg/pids/s-1".into(), "/cg/memory/s-1".into()],
            limits: vec!["pids.max=9".into(), "?memory.swap.max=0".into()],
        };
        let payload = route.payload();
        assert_eq!(payload[0], MARK);
        assert_eq!(Route::decode(&payload[1..]), Some(route));
    }

    #[test]
    fn a_malformed_route_is_refused() {
        for bytes in [
            &b""[..],
            b"0\x000\0",
            b"2\0/cg/a\x000\0",
            b"x\0/cg\x000\0",
            b"1\0/cg\x000\0extra",
            b"\xff\0",
        ] {
            assert_eq!(Route::decode(bytes), None, "{bytes:?}");
        }
    }
}
