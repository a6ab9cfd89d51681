//! `--probe`: what this kernel's Landlock enforces and whether seccomp filters can be installed (the metadata
//! guard of last resort and the network filter), as the one JSON line the host parses.

use super::landlock;

pub fn json() -> String {
    let abi = landlock::abi();
    let level = |deny_network| {
        if abi > 0 {
            landlock::enforcement(abi, deny_network)
        } else {
            "none"
        }
    };
    format!(
        "{{\"landlockAbi\":{abi},\"seccomp\":{},\"enforcement\":{{\"network\":\"{}\",\"noNetwork\":\"{}\"}}}}",
        seccomp_available(),
        level(false),
        level(true)
    )
}

/// PR_GET_SECCOMP answers 0 (no filter yet) or 2 (filtered) where the kernel has seccomp, EINVAL where not.
fn seccomp_available() -> bool {
    // SAFETY: a query of this process's own seccomp mode, no pointers.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 }
}

#[cfg(test)]
mod tests {
    #[test]
    fn is_one_json_line_naming_both_policies() {
        let text = super::json();
        assert!(!text.contains('\n'));
        assert!(text.starts_with("{\"landlockAbi\":"));
        assert!(text.contains("\"seccomp\":true"));
        assert!(text.contains("\"network\":\"") && text.contains("\"noNetwork\":\""));
    }
}
