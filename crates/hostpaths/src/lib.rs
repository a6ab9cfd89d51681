//! The host's part of a read policy, derived from what this host's directories hold now: the denied entries expanded
//! (`~/` under every home, `*` within the last component), the toolchains a session view shows from PATH, and where
//! /etc/resolv.conf leads. One owner for both places a command runs: the binding derives it for local commands, and
//! `shellring-runner --stdio` for the commands it runs on its own host.

mod glob;
mod lexical;

use std::path::Path;

use glob::matches;
use lexical::joined;

/// What a read policy's entries and a command's PATH name on this host.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ReadPaths {
    /// The home directories: root's, each under /home, and `home` (sorted).
    pub homes: Vec<String>,
    /// Every path the denied entries name now, in the entries' order, each once.
    pub denied: Vec<String>,
    /// The directories holding PATH's entries under a home, which a session view shows read-only (sorted).
    pub toolchains: Vec<String>,
    /// Where /etc/resolv.conf leads, when it is a link out of /etc (systemd-resolved's stub).
    pub resolver: Option<String>,
    /// The directories whose entries decided the rest: what changes in them can change it.
    pub consulted: Vec<String>,
}

/// Derives the read paths of `entries` (absolute, or starting with `~/`) and `path` (a PATH value) on this host, with
/// `home` as the current user's home directory.
pub fn read_paths(entries: &[String], path: &str, home: Option<&str>) -> ReadPaths {
    let homes = homes(home);
    let mut consulted = vec!["/home".to_owned(), "/etc".to_owned()];
    let mut denied: Vec<String> = Vec::new();
    for entry in entries {
        for named in under_homes(entry, &homes) {
            for found in expand_star(&named, &mut consulted) {
                if !denied.contains(&found) {
                    denied.push(found);
                }
            }
        }
    }
    ReadPaths {
        toolchains: toolchains(path, &homes),
        resolver: resolver_target(),
        homes,
        denied,
        consulted,
    }
}

/// The home directories of this host: root's, each under /home, and `home`.
fn homes(home: Option<&str>) -> Vec<String> {
    let mut found = vec!["/root".to_owned()];
    if let Ok(entries) = std::fs::read_dir("/home") {
        found.extend(
            entries
                .flatten()
                .map(|entry| format!("/home/{}", entry.file_name().to_string_lossy())),
        );
    }
    if let Some(home) = home.filter(|home| home.starts_with('/')) {
        found.push(joined(home, ""));
    }
    found.sort();
    found.dedup();
    found
}

/// The paths `entry` names before `*` is expanded: itself, or `~/` under each home.
fn under_homes(entry: &str, homes: &[String]) -> Vec<String> {
    match entry.strip_prefix("~/") {
        Some(rest) => homes.iter().map(|home| joined(home, rest)).collect(),
        None => vec![joined(entry, "")],
    }
}

/// The entries of `path`'s directory its last component matches (the path itself when it has no `*`); the
/// directory is noted in `consulted`.
fn expand_star(path: &str, consulted: &mut Vec<String>) -> Vec<String> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if !name.contains('*') {
        return vec![path.to_owned()];
    }
    let dir = if dir.is_empty() { "/" } else { dir };
    if !consulted.iter().any(|known| known == dir) {
        consulted.push(dir.to_owned());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|candidate| matches(name, candidate))
        .map(|candidate| joined(dir, &candidate))
        .collect();
    found.sort();
    found
}

/// The toolchains a session view shows read-only: for each PATH entry under a home, the home's directory that holds
/// it (~/.cargo, ~/.nvm, ~/.pyenv ...; ~/.local/bin itself, since ~/.local/share holds data), and ~/.rustup with
/// ~/.cargo (its proxies run the toolchains kept there).
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
        // A home itself on PATH, or a step out of it, shows nothing.
        if top.is_empty() || top == "." || top == ".." {
            continue;
        }
        out.push(if top == ".local" {
            joined(entry, "")
        } else {
            joined(home, top)
        });
        if top == ".cargo" {
            out.push(joined(home, ".rustup"));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Where /etc/resolv.conf leads when it is a link out of /etc: name resolution needs it.
fn resolver_target() -> Option<String> {
    let conf = Path::new("/etc/resolv.conf");
    if !std::fs::symlink_metadata(conf)
        .ok()?
        .file_type()
        .is_symlink()
    {
        return None;
    }
    let target = std::fs::canonicalize(conf).ok()?;
    (!target.starts_with("/etc/")).then(|| target.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_entries_expand_under_every_home() {
        let homes = vec!["/home/u".to_owned(), "/root".to_owned()];
        assert_eq!(
            under_homes("~/.ssh", &homes),
            ["/home/u/.ssh", "/root/.ssh"]
        );
        assert_eq!(under_homes("/etc/shadow", &homes), ["/etc/shadow"]);
        assert_eq!(under_homes("~/../x", &homes), ["/home/x", "/x"]);
    }

    #[test]
    fn toolchains_are_the_home_directories_holding_path_entries() {
        let homes = vec![
            "/home/a".to_owned(),
            "/home/ab".to_owned(),
            "/root".to_owned(),
        ];
        let path = "/usr/bin:/root/.cargo/bin:/home/a/.nvm/versions/node/v20/bin:/home/a/.local/bin:/home/ab/bin:/opt/x/bin";
        assert_eq!(
            toolchains(path, &homes),
            [
                "/home/a/.local/bin",
                "/home/a/.nvm",
                "/home/ab/bin",
                "/root/.cargo",
                "/root/.rustup"
            ]
        );
        assert_eq!(toolchains("", &homes), Vec::<String>::new());
        assert_eq!(
            toolchains("/home/a:/home/a/:/home/a/../b/bin", &homes),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_star_expands_within_its_directory_and_notes_it() {
        let dir = std::env::temp_dir().join(format!("shellring-hostpaths-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["ssh_host_rsa_key", "ssh_host_rsa_key.pub", "moduli"] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        let dir = dir.to_string_lossy().into_owned();
        let entries = [
            format!("{dir}/*_key"),
            "/etc/shadow".to_owned(),
            format!("{dir}/none/*"),
        ];
        let found = read_paths(&entries, "", None);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            found.denied,
            [format!("{dir}/ssh_host_rsa_key"), "/etc/shadow".to_owned()]
        );
        assert!(found.consulted.contains(&dir) && found.consulted.contains(&format!("{dir}/none")));
        assert!(found.homes.contains(&"/root".to_owned()));
    }
}
