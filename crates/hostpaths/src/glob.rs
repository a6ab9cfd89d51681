//! The one wildcard a read-deny entry may hold: `*` in its last component, any run of characters.

/// Whether `name` matches `pattern`, whose only wildcard is `*`.
pub fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == name;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn a_star_matches_any_run_within_one_name() {
        assert!(matches("ssh_host_*_key", "ssh_host_ed25519_key"));
        assert!(!matches("ssh_host_*_key", "ssh_host_ed25519_key.pub"));
        assert!(matches("sudoers*", "sudoers"));
        assert!(matches("*", "anything"));
        assert!(!matches("a*b*c", "acb"));
        assert!(matches("a*b*c", "axbyc"));
        assert!(!matches("ab*ba", "aba"));
        assert!(matches("plain", "plain") && !matches("plain", "plainer"));
    }
}
