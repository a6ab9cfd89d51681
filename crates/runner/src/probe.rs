//! `--probe`: what this kernel's Landlock enforces, as the one JSON line the host parses.

use crate::landlock;

pub fn json() -> String {
    let abi = landlock::abi();
    let level = |deny_network| if abi > 0 { landlock::enforcement(abi, deny_network) } else { "none" };
    format!(
        "{{\"landlockAbi\":{abi},\"enforcement\":{{\"network\":\"{}\",\"noNetwork\":\"{}\"}}}}",
        level(false),
        level(true)
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn is_one_json_line_naming_both_policies() {
        let text = super::json();
        assert!(!text.contains('\n'));
        assert!(text.starts_with("{\"landlockAbi\":"));
        assert!(text.contains("\"network\":\"") && text.contains("\"noNetwork\":\""));
    }
}
