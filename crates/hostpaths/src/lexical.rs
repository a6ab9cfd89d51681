//! Paths joined and cleaned by their text alone (`.`, `..` and repeated slashes), as the host's path module does:
//! a sandbox names each path once, however the entry spelled it.

/// `base` joined with `rest`, cleaned; `base` is absolute.
pub fn joined(base: &str, rest: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in base.split('/').chain(rest.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::joined;

    #[test]
    fn joins_and_cleans_by_text() {
        assert_eq!(joined("/root", ".ssh"), "/root/.ssh");
        assert_eq!(joined("/home/u/", "a//b/./c"), "/home/u/a/b/c");
        assert_eq!(joined("/home/u", "../../.."), "/");
        assert_eq!(joined("/etc/shadow", ""), "/etc/shadow");
    }
}
