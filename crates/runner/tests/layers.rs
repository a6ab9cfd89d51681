//! The sandbox layers end to end through the runner executable: metadata, kernel surfaces, hidden state,
//! descriptors, the seccomp fallback, and the network filter.

// Only the request helpers of the shared test code serve here.
#[allow(dead_code)]
mod common;

use common::{command, request_frame};
use shellring_runner::wire::plan::{Backend, Isolation, Plan, View};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};

/// Runs the runner on `plan` in `cwd`, fd 3 its status socket and fd 7 an inherited file; returns (status lines,
/// stdout+stderr).
fn run(plan: Plan, cwd: &std::path::Path) -> (String, String) {
    let (ours, theirs): (OwnedFd, OwnedFd) = socketpair(
        AddressFamily::Unix,
        SockType::Stream,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .unwrap();
    let extra = std::fs::File::create(cwd.join("../inherited")).unwrap();
    let (fd, extra_fd) = (theirs.as_raw_fd(), extra.as_raw_fd());
    let mut command = Command::new(env!("CARGO_BIN_EXE_shellring-runner"));
    command
        .arg("--run")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: dup2 is async-signal-safe; fd 3 is the status socket, fd 7 a descriptor the host "inherited".
    unsafe {
        command.pre_exec(move || {
            if libc::dup2(fd, 3) < 0 || libc::dup2(extra_fd, 7) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command.spawn().unwrap();
    drop(theirs);
    let mut ours = std::fs::File::from(ours);
    ours.write_all(&request_frame(plan, cwd)).unwrap();
    let out = child.wait_with_output().unwrap();
    let mut status = String::new();
    ours.read_to_string(&mut status).unwrap();
    (
        status,
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Landlock with `ws` writable, metadata guarded by seccomp alone (no mount namespace).
fn landlock_without_namespace(ws: String, script: &str) -> Plan {
    Plan {
        backend: Backend::Landlock,
        isolation: Isolation::Seccomp,
        writable: vec![ws],
        ..command(script)
    }
}

struct Tree {
    base: std::path::PathBuf,
}

impl Tree {
    fn new(name: &str) -> Tree {
        let base =
            std::env::temp_dir().join(format!("shellring-layers-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        for dir in ["ws", "side", "state/s1", "state/s2"] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        std::fs::write(base.join("side/f"), "x").unwrap();
        std::fs::set_permissions(base.join("side/f"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        std::fs::write(base.join("state/s2/secret"), "other-session").unwrap();
        Tree { base }
    }
    fn path(&self, rel: &str) -> String {
        self.base.join(rel).to_string_lossy().into_owned()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

#[test]
fn landlock_with_its_mount_layer_keeps_metadata_kernel_and_state_out_of_reach() {
    let t = Tree::new("ns");
    let script = format!(
        "chmod 777 {f}; touch -d 2001-01-01 {f}; cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname; \
         cat {state}/s2/secret; echo own > {state}/s1/t && cat {state}/s1/t; echo in > in && chmod +x in && echo chmod-in-ok; \
         echo leak >&7; for fd in $(seq 3 64); do [ -e /proc/$$/fd/$fd ] && echo open-$fd; done; echo end",
        f = t.path("side/f"),
        state = t.path("state"),
    );
    let (ws, s1, state) = (t.path("ws"), t.path("state/s1"), t.path("state"));
    let plan = Plan {
        backend: Backend::Landlock,
        writable: vec![ws, s1],
        hidden: vec![state],
        ..command(&script)
    };
    let (status, out) = run(plan, &t.base.join("ws"));
    assert!(status.starts_with("started "), "{status}");
    assert!(
        out.contains("chmod: changing permissions") && out.contains("Read-only file system"),
        "{out}"
    );
    assert!(
        !out.contains("other-session") && out.contains("own\n") && out.contains("chmod-in-ok"),
        "{out}"
    );
    assert!(!out.contains("open-") && out.contains("end"), "{out}");
    let meta = std::fs::metadata(t.base.join("side/f")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o644);
    assert_eq!(
        std::fs::read_to_string(t.base.join("inherited")).unwrap(),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(t.base.join("state/s1/t")).unwrap(),
        "own\n"
    );
}

#[test]
fn the_seccomp_fallback_refuses_metadata_everywhere_and_says_partial() {
    let t = Tree::new("seccomp");
    let ws = t.path("ws");
    // Without the mount layer, Landlock alone keeps writes inside the roots.
    let script = format!(
        "chmod 777 {f}; echo in > in && echo write-in-ok; chmod +x in || echo inside-refused; ipcmk -M 4096 || echo ipc-refused; \
         echo out > {out} || echo write-out-refused",
        f = t.path("side/f"),
        out = t.path("side/new"),
    );
    let (status, out) = run(landlock_without_namespace(ws, &script), &t.base.join("ws"));
    assert!(
        status.starts_with("started ") && status.contains(" partial\n"),
        "{status}"
    );
    assert!(
        out.contains("Operation not permitted")
            && out.contains("inside-refused")
            && out.contains("ipc-refused"),
        "{out}"
    );
    assert!(
        out.contains("write-in-ok") && out.contains("write-out-refused"),
        "{out}"
    );
    assert!(!t.base.join("side/new").exists());
    assert_eq!(
        std::fs::metadata(t.base.join("side/f"))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777,
        0o644
    );
}

#[test]
fn network_deny_refuses_tcp_udp_and_unix_sockets_in_both_backends() {
    let t = Tree::new("net");
    let ws = t.path("ws");
    let script = "echo > /dev/udp/127.0.0.1/9 || echo udp-refused; exec 3<>/dev/tcp/127.0.0.1/9 || echo tcp-refused";
    for backend in [Backend::Landlock, Backend::Bubblewrap("bwrap".into())] {
        let plan = Plan {
            backend,
            writable: vec![ws.clone()],
            deny_network: true,
            ..command(script)
        };
        let backend = format!("{:?}", plan.backend);
        let (status, out) = run(plan, &t.base.join("ws"));
        assert!(status.starts_with("started "), "{status}");
        assert!(
            out.contains("udp-refused") && out.contains("tcp-refused"),
            "{backend:?}: {out}"
        );
    }
}

#[test]
fn an_unconfined_command_gets_descriptors_0_to_2_only() {
    let t = Tree::new("fds");
    let (status, out) = run(command("echo leak >&7; for fd in $(seq 3 64); do [ -e /proc/$$/fd/$fd ] && echo open-$fd; done; echo end"), &t.base.join("ws"));
    assert!(status.starts_with("started "), "{status}");
    assert!(
        out.contains("Bad file descriptor") && !out.contains("open-") && out.contains("end\n"),
        "{out}"
    );
}

#[test]
fn the_seccomp_fallback_refuses_a_host_shared_memory_segment_by_its_id() {
    let t = Tree::new("shm");
    // SAFETY: a private 4 KiB segment made and removed here; only its id travels.
    let id = unsafe { libc::shmget(libc::IPC_PRIVATE, 4096, 0o666 | libc::IPC_CREAT) };
    assert!(id >= 0);
    let script = format!(
        "python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); l.shmat.restype=ctypes.c_void_p; \
         a=l.shmat({id},None,0); print(\"attached\" if a not in (None, ctypes.c_void_p(-1).value) else \"shmat-refused\"); \
         b=ctypes.create_string_buffer(128); print(\"stat\" if l.shmctl({id},2,b)==0 else \"shmctl-refused\")'"
    );
    let ws = t.path("ws");
    let (status, out) = run(landlock_without_namespace(ws, &script), &t.base.join("ws"));
    // Without the filter the same attach works, so the refusal is the filter's.
    let (_, unconfined) = run(command(&script), &t.base.join("ws"));
    // SAFETY: removes the segment made above.
    unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
    assert!(status.contains(" partial\n"), "{status}");
    assert!(
        out.contains("shmat-refused") && out.contains("shmctl-refused"),
        "{out}"
    );
    assert!(
        unconfined.contains("attached") && unconfined.contains("stat"),
        "{unconfined}"
    );
}

#[test]
fn the_session_view_never_falls_back_to_a_wider_one() {
    let t = Tree::new("closed");
    let ws = t.path("ws");
    let plan = Plan {
        backend: Backend::Landlock,
        view: View::Session,
        isolation: Isolation::Seccomp,
        writable: vec![ws],
        ..command("echo ran")
    };
    let (status, out) = run(plan, &t.base.join("ws"));
    assert_eq!(status, "error RUNNER_SANDBOX_UNAVAILABLE view\n");
    assert!(!out.contains("ran"), "{out}");
}

#[test]
fn both_backends_give_a_pid_namespace_no_keyring_and_in_the_session_view_only_the_own_paths() {
    let t = Tree::new("view");
    let (ws, state) = (t.path("ws"), t.path("state"));
    std::fs::write(t.base.join("ws/own"), "own-file").unwrap();
    // A host process whose command line holds a secret, as another session's command would.
    let mut neighbour = Command::new("sleep")
        .arg("60")
        .arg0("neighbour-secret-argument")
        .spawn()
        .unwrap();
    let script = format!(
        "cat own; echo; cat {side} >/dev/null 2>&1 && echo side-read; cat {secret}; cat /etc/shadow | head -c 8; echo; \
         (grep -l neighbour-secre[t]-argument /proc/[0-9]*/cmdline 2>/dev/null | grep -q . && echo neighbour-seen || echo no-neighbour); echo pid-$$; \
         python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print(\"keyctl\", l.syscall({nr},0,-3,1), ctypes.get_errno())'",
        side = t.path("side/f"),
        secret = t.path("state/s2/secret"),
        nr = libc::SYS_keyctl,
    );
    for backend in [Backend::Landlock, Backend::Bubblewrap("bwrap".into())] {
        let plan = Plan {
            backend,
            view: View::Session,
            writable: vec![ws.clone()],
            hidden: vec![state.clone()],
            denied: vec!["/etc/shadow".into()],
            ..command(&script)
        };
        let backend = format!("{:?}", plan.backend);
        let (status, out) = run(plan, &t.base.join("ws"));
        assert!(status.starts_with("started "), "{status}");
        assert!(
            out.contains("own-file") && out.contains("no-neighbour") && out.contains("pid-2"),
            "{backend:?}: {out}"
        );
        assert!(
            !out.contains("other-session") && !out.contains("root:"),
            "{backend:?}: {out}"
        );
        // The file beside the workspace is out of the view (absent or refused).
        assert!(!out.contains("side-read"), "{backend:?}: {out}");
        assert!(
            out.contains(&format!("keyctl -1 {}", libc::EACCES)),
            "{backend:?}: {out}"
        );
    }
    // The same probes unconfined see all of it: each refusal above is the sandbox's.
    let (_, out) = run(command(&script), &t.base.join("ws"));
    neighbour.kill().unwrap();
    let _ = neighbour.wait();
    assert!(
        out.contains("side-read") && out.contains("other-session") && !out.contains("no-neighbour"),
        "{out}"
    );
    assert!(
        !out.contains(&format!("keyctl -1 {}", libc::EACCES)),
        "{out}"
    );
}
