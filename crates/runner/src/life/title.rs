//! A forked runner's command line: it shows in ps and /proc as `shellring-runner [landlock|bubblewrap] -c <command>`
//! (see `Plan::title`) instead of the fork server's. The title overwrites the argument and environment area
//! of the process (the fork server is started with a spare environment as room); the kernel reads a title that runs
//! past the original arguments up to its first NUL, at most a page.

use std::sync::OnceLock;

use crate::wire::plan::{Backend, Plan};

/// The area, found once in the server: every runner it forks has the same, so none reads /proc for it again.
static AREA: OnceLock<Option<(usize, usize, usize)>> = OnceLock::new();

/// Finds the area now, in a server about to fork runners.
pub fn prepare() {
    AREA.get_or_init(area);
}

/// The start and end of the argument area and the end of the environment area, from /proc/self/stat.
fn area() -> Option<(usize, usize, usize)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name's last ')' start at field 3; arg_start, arg_end, env_start, env_end are 48-51.
    let fields: Vec<usize> = stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let (arg_start, arg_end, env_start, env_end) = (
        *fields.get(45)?,
        *fields.get(46)?,
        *fields.get(47)?,
        *fields.get(48)?,
    );
    // The kernel shows an overflowing title only where the environment directly follows the arguments.
    let end = if env_start == arg_end && env_end > arg_end {
        env_end
    } else {
        arg_end
    };
    (arg_start > 0 && end > arg_start).then_some((arg_start, arg_end, end))
}

/// Sets the title, cut to the room there is. Call only once nothing reads the original arguments or environment
/// any more (after the environment was replaced).
pub fn set(title: &str) {
    let Some((start, arg_end, end)) = *AREA.get_or_init(area) else {
        return;
    };
    let room = (end - start - 1).min(4095);
    let bytes = &title.as_bytes()[..title.len().min(room)];
    // Clear what the old arguments showed, then the title and its NUL (zeroing past them up to the arguments' end).
    let clear = (arg_end - start).max(bytes.len() + 1);
    // SAFETY: [start, end) is this process's own argument and environment area on its initial stack, mapped and
    // writable for the life of the process; the environment no longer points into it (every variable was replaced
    // before) and the original arguments are not read again. `clear` and `bytes.len() + 1` are within `end - start`.
    unsafe {
        let area = start as *mut u8;
        std::ptr::write_bytes(area, 0, clear.min(end - start));
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), area, bytes.len());
    }
}

/// How a runner shows in ps: `shellring-runner [landlock|bubblewrap] -c <command>`.
pub fn of(plan: &Plan) -> String {
    let backend = match plan.backend {
        Backend::None => "",
        Backend::Landlock => "landlock ",
        Backend::Bubblewrap(_) => "bubblewrap ",
    };
    format!("shellring-runner {backend}-c {}", plan.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_name_the_backend_and_the_command() {
        let plan = Plan {
            command: "echo a=b".into(),
            backend: Backend::Bubblewrap("/usr/bin/bwrap".into()),
            ..Plan::default()
        };
        assert_eq!(of(&plan), "shellring-runner bubblewrap -c echo a=b");
        let plain = Plan {
            command: "true".into(),
            ..Plan::default()
        };
        assert_eq!(of(&plain), "shellring-runner -c true");
    }
}
