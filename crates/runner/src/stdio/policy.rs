//! The host's part of a confined command's plan under `--stdio`. The server that sends the request knows the
//! session's workspace and its read policy, but not this host's files: here the denied entries are expanded and the
//! session view shows this host's toolchains and resolver (crates/hostpaths, as the host derives them for its own
//! commands), the stream's private temporary directory is made writable for a command that may write (and named by
//! TMPDIR, as the local sandbox names its session's), and every stream's temporary directories are hidden.

use shellring_hostpaths::read_paths;

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
    let path = env
        .iter()
        .find(|(name, _)| name == "PATH")
        .map_or("", |(_, value)| value.as_str());
    let home = std::env::home_dir().map(|home| home.to_string_lossy().into_owned());
    let found = read_paths(&plan.denied, path, home.as_deref());
    plan.denied = found.denied;
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
        plan.readable.extend(found.toolchains);
        plan.readable.extend(found.resolver);
    }
}

fn set(env: &mut Vec<(String, String)>, name: &str, value: &str) {
    env.retain(|(n, _)| n != name);
    env.push((name.to_owned(), value.to_owned()));
}

#[cfg(test)]
mod tests {
    use super::*;

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
