//! What a confined command can read: the session view's shape (the operating system read-only, the places that hold
//! data empty, a few device nodes) and the masks over denied paths, shared by bubblewrap's arguments, the Landlock
//! backend's mount namespace and its Landlock rules.

use std::path::Path;

use crate::wire::plan::{Plan, View};

/// The operating system, shown read-only in the session view.
pub const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Places that hold data: empty in the session view (the command's own paths are bound back inside them).
pub const EMPTIED: &[&str] = &[
    "/home", "/root", "/srv", "/mnt", "/media", "/tmp", "/var/tmp",
];

/// Device nodes the session view lets a command read, beside the writable ones (null, zero, full, tty).
pub const DEVICES: &[&str] = &["/dev/random", "/dev/urandom", "/dev/pts", "/dev/ptmx"];

/// The entries of `paths` that exist on the host (a dangling symbolic link does not).
pub fn existing<'a>(paths: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
    paths.iter().copied().filter(|p| Path::new(p).exists())
}

/// Whether `path` is `root` or lies beneath it, by whole components.
pub fn beneath(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Whether `path` shows in the command's view at all: in the session view beneath the system or one of the
/// command's own paths; in the host view anywhere but beneath a hidden directory (unless bound back there).
pub fn shown(plan: &Plan, path: &str) -> bool {
    let own = plan
        .readable
        .iter()
        .chain(&plan.writable)
        .any(|root| beneath(path, root));
    match plan.view {
        View::Session => own || SYSTEM.iter().any(|root| beneath(path, root)),
        View::Host => own || !plan.hidden.iter().any(|root| beneath(path, root)),
    }
}

/// Whether a hidden directory is in the view to be hidden: always in the host view; in the session view only
/// beneath the system or the command's own paths (elsewhere it is already out of sight).
pub fn hidden_shown(plan: &Plan, hidden: &str) -> bool {
    let covering = |root: &String| beneath(hidden, root) && hidden != root.trim_end_matches('/');
    plan.view == View::Host
        || plan.readable.iter().chain(&plan.writable).any(covering)
        || SYSTEM.iter().any(|root| beneath(hidden, root))
}

/// The denied paths that exist and show in the view, each with whether it is a directory (a directory is masked
/// by an empty one, anything else by an empty file).
pub fn masks(plan: &Plan) -> Vec<(String, bool)> {
    plan.denied
        .iter()
        .filter(|path| shown(plan, path))
        .filter_map(|path| {
            std::fs::metadata(path)
                .ok()
                .map(|meta| (path.clone(), meta.is_dir()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(view: View) -> Plan {
        Plan {
            view,
            readable: vec!["/root/.cargo".into()],
            writable: vec!["/tmp/ws".into()],
            hidden: vec!["/tmp/state".into()],
            ..Plan::default()
        }
    }

    #[test]
    fn components_not_prefixes() {
        assert!(beneath("/etc/ssh/key", "/etc"));
        assert!(beneath("/etc", "/etc/"));
        assert!(!beneath("/etcetera", "/etc"));
    }

    #[test]
    fn the_session_view_shows_the_system_and_its_own_paths_only() {
        let p = plan(View::Session);
        for path in [
            "/etc/shadow",
            "/usr/bin/git",
            "/root/.cargo/credentials.toml",
            "/tmp/ws/.env",
        ] {
            assert!(shown(&p, path), "{path}");
        }
        for path in [
            "/root/.aws/credentials",
            "/home/u/.ssh",
            "/srv/other",
            "/tmp/state/x",
        ] {
            assert!(!shown(&p, path), "{path}");
        }
    }

    #[test]
    fn the_host_view_shows_all_but_the_hidden_state() {
        let p = plan(View::Host);
        assert!(shown(&p, "/root/.aws/credentials") && shown(&p, "/srv/other"));
        assert!(!shown(&p, "/tmp/state/x"));
    }

    #[test]
    fn masks_name_existing_denied_paths_with_their_kind() {
        let mut p = plan(View::Host);
        p.denied = vec![
            "/etc".into(),
            "/etc/passwd".into(),
            "/nonexistent-shellring".into(),
            "/tmp/state/x".into(),
        ];
        assert_eq!(
            masks(&p),
            [
                ("/etc".to_string(), true),
                ("/etc/passwd".to_string(), false)
            ]
        );
    }
}
