//! The host's part of a confined command's plan under `--stdio`. The server that sends the request knows the
//! session's workspace and its read policy, but not this host's files: here the denied entries (`~/` under every
//! home of this host, `*` in the last component) are expanded, the stream's private temporary directory is made
//! writable for a command that may write (and named by TMPDIR, as the local sandbox names its session's), every
//! stream's temporary directories are hidden, and the session view shows this host's toolchains and resolver.

use std::path::{Path, PathBuf};

use crate::wire::plan::{Backend, Plan, View};

/// The temporary directories of `--stdio` streams: one parent per user, one directory per stream inside it.
pub struct StreamTmp {
    /// Every stream's directories: hidden from every confined command.
    root: String,
    /// This stream's own (its session's): writable to a command that may write, removed when the stream ends.
    own: String,
}

impl StreamTmp {
    /// Makes this stream's directory; None when no private one can be had (a confined command then gets none).
    pub fn make() -> Option<StreamTmp> {
        let uid = rustix::process::geteuid().as_raw();
        let root = std::env::temp_dir().join(format!("shellring-stdio-{uid}"));
        match std::fs::create_dir(&root) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(_) => return None,
        }
        // The parent lives in a shared directory: only one that is ours alone, not a link, may hold sessions' files.
        let meta = std::fs::symlink_metadata(&root).ok()?;
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if !meta.is_dir() || meta.uid() != uid {
            return None;
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).ok()?;
        }
        // Named by this server's pid, unique among live streams; one left by a dead stream of the same pid is
        // that stream's leftover (the parent is ours alone), removed first.
        let own = root.join(format!("session-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&own);
        std::fs::create_dir(&own).ok()?;
        Some(StreamTmp {
            root: root.to_string_lossy().into_owned(),
            own: own.to_string_lossy().into_owned(),
        })
    }

    /// Removes this stream's directory and what its commands left in it.
    pub fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.own);
    }
}

/// Completes a confined command's plan and environment for this host (an unconfined one is left as it is).
pub fn complete(plan: &mut Plan, env: &mut Vec<(String, String)>, tmp: Option<&StreamTmp>) {
    if plan.backend == Backend::None {
        return;
    }
    let homes = homes();
    plan.denied = plan
        .denied
        .iter()
        .flat_map(|entry| expand(entry, &homes))
        .collect();
    if let Some(tmp) = tmp {
        plan.hidden.push(tmp.root.clone());
        // Only a command that may write anywhere gets a temporary directory, as locally (workspace-write).
        if !plan.writable.is_empty() {
            plan.writable.push(tmp.own.clone());
            set(env, "TMPDIR", &tmp.own);
            set(env, "XDG_CACHE_HOME", &format!("{}/.cache", tmp.own));
            set(env, "npm_config_cache", &format!("{}/.npm", tmp.own));
        }
    }
    if plan.view == View::Session {
        let path = env
            .iter()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| value.as_str());
        plan.readable.extend(toolchains(path.unwrap_or(""), &homes));
        plan.readable.extend(resolver_target());
    }
}

fn set(env: &mut Vec<(String, String)>, name: &str, value: &str) {
    env.retain(|(n, _)| n != name);
    env.push((name.to_owned(), value.to_owned()));
}

/// The home directories of this host: root's, each under /home, and this user's.
fn homes() -> Vec<String> {
    let mut found = vec!["/root".to_owned()];
    if let Ok(entries) = std::fs::read_dir("/home") {
        found.extend(
            entries
                .flatten()
                .map(|entry| format!("/home/{}", entry.file_name().to_string_lossy())),
        );
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        found.push(home.to_string_lossy().trim_end_matches('/').to_owned());
    }
    found.sort();
    found.dedup();
    found
}

/// Every path `entry` names on this host: `~/` under each home, `*` within the last component.
fn expand(entry: &str, homes: &[String]) -> Vec<String> {
    let paths: Vec<String> = match entry.strip_prefix("~/") {
        Some(rest) => homes.iter().map(|home| format!("{home}/{rest}")).collect(),
        None => vec![entry.to_owned()],
    };
    paths.iter().flat_map(|path| expand_star(path)).collect()
}

fn expand_star(path: &str) -> Vec<String> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if !name.contains('*') {
        return vec![path.to_owned()];
    }
    let Ok(entries) = std::fs::read_dir(if dir.is_empty() { "/" } else { dir }) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|candidate| matches(name, candidate))
        .map(|candidate| format!("{dir}/{candidate}"))
        .collect()
}

/// Whether `name` matches `pattern`, whose only wildcard is `*` (any run of characters).
fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
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

/// The toolchains the session view shows read-only: for each PATH entry under a home, the home's directory that
/// holds it (~/.local/bin itself, since ~/.local/share holds data), and ~/.rustup with ~/.cargo.
fn toolchains(path: &str, homes: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for entry in path.split(':') {
        let Some((home, rest)) = homes
            .iter()
            .find_map(|home| Some((home, entry.strip_prefix(home.as_str())?.strip_prefix('/')?)))
        else {
            continue;
        };
        let top = rest.split('/').next().unwrap_or("");
        if top.is_empty() {
            continue;
        }
        out.push(if top == ".local" {
            entry.to_owned()
        } else {
            format!("{home}/{top}")
        });
        if top == ".cargo" {
            out.push(format!("{home}/.rustup"));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Where /etc/resolv.conf leads when it is a link out of /etc (systemd-resolved's stub): name resolution needs it.
fn resolver_target() -> Option<String> {
    let conf = Path::new("/etc/resolv.conf");
    if !std::fs::symlink_metadata(conf)
        .ok()?
        .file_type()
        .is_symlink()
    {
        return None;
    }
    let target: PathBuf = std::fs::canonicalize(conf).ok()?;
    (!target.starts_with("/etc/")).then(|| target.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_star_matches_within_one_component() {
        assert!(matches("ssh_host_*_key", "ssh_host_ed25519_key"));
        assert!(!matches("ssh_host_*_key", "ssh_host_ed25519_key.pub"));
        assert!(matches("sudoers*", "sudoers"));
        assert!(matches("*", "anything"));
        assert!(!matches("a*b*c", "acb"));
        assert!(matches("a*b*c", "axbyc"));
    }

    #[test]
    fn home_entries_expand_under_every_home() {
        let homes = vec!["/root".to_owned(), "/home/u".to_owned()];
        assert_eq!(expand("~/.ssh", &homes), ["/root/.ssh", "/home/u/.ssh"]);
        assert_eq!(expand("/etc/shadow", &homes), ["/etc/shadow"]);
    }

    #[test]
    fn toolchains_are_the_home_directories_holding_path_entries() {
        let homes = vec!["/home/u".to_owned()];
        assert_eq!(
            toolchains("/usr/bin:/home/u/.cargo/bin:/home/u/.local/bin", &homes),
            ["/home/u/.cargo", "/home/u/.local/bin", "/home/u/.rustup"]
        );
    }

    #[test]
    fn an_unconfined_plan_is_left_alone() {
        let mut plan = Plan {
            denied: vec!["~/.ssh".into()],
            ..Plan::default()
        };
        let mut env = Vec::new();
        complete(&mut plan, &mut env, None);
        assert_eq!(plan.denied, ["~/.ssh"]);
        assert!(env.is_empty());
    }
}
