//! Spill files on a real file system: creation, back-fill, caps, and every failure turning `Unavailable`.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::{TempDir, Tmpfs};
use shellring_core::{Capture, CaptureOptions, SpillState, Stream};

fn options(dir: &Path, cap: usize) -> CaptureOptions {
    CaptureOptions {
        stdout_cap: cap,
        stderr_cap: cap,
        spill_dir: Some(dir.to_path_buf()),
        ..Default::default()
    }
}

#[test]
fn a_stream_within_its_cap_never_spills() {
    let dir = TempDir::new("within");
    let mut c = Capture::new(1, &options(dir.path(), 10));
    c.write(Stream::Stdout, b"0123456789");
    c.finish();
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::None);
    assert_eq!(c.info(Stream::Stdout).spill_path, None);
    assert!(dir.entries().is_empty());
}

#[test]
fn overflow_without_a_directory_is_unavailable() {
    let mut c = Capture::new(
        1,
        &CaptureOptions {
            stdout_cap: 4,
            ..Default::default()
        },
    );
    c.write(Stream::Stdout, b"12345");
    let info = c.info(Stream::Stdout);
    assert_eq!(info.spill, SpillState::Unavailable);
    assert_eq!(info.spill_path, None);
    assert_eq!(c.tail(Stream::Stdout), b"2345");
}

#[test]
fn the_first_overflow_back_fills_the_whole_stream() {
    let dir = TempDir::new("backfill");
    let mut c = Capture::new(42, &options(dir.path(), 10));
    c.write(Stream::Stdout, b"hello ");
    c.write(Stream::Stdout, b"world");
    let info = c.info(Stream::Stdout);
    let expected = dir.path().join("capture-42.stdout.log");
    assert_eq!(info.spill, SpillState::Active);
    assert_eq!(info.spill_path.as_deref(), Some(expected.as_path()));
    assert_eq!(
        fs::read(&expected).unwrap(),
        b"hello world",
        "active: the file holds the stream so far"
    );
    c.write(Stream::Stdout, b"!");
    c.finish();
    let info = c.info(Stream::Stdout);
    assert_eq!(info.spill, SpillState::Complete);
    assert_eq!(info.spill_path.as_deref(), Some(expected.as_path()));
    assert_eq!(fs::read(&expected).unwrap(), b"hello world!");
    assert_eq!(
        fs::metadata(&expected).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        c.info(Stream::Stderr).spill,
        SpillState::None,
        "streams spill independently"
    );
}

#[test]
fn the_spill_name_option_names_both_files() {
    let dir = TempDir::new("name");
    let opts = CaptureOptions {
        spill_name: Some("job-7".into()),
        ..options(dir.path(), 1)
    };
    let mut c = Capture::new(3, &opts);
    c.write(Stream::Stdout, b"ab");
    c.write(Stream::Stderr, b"cd");
    c.finish();
    assert_eq!(dir.entries(), vec!["job-7.stderr.log", "job-7.stdout.log"]);
}

#[test]
fn an_existing_file_is_never_overwritten() {
    let dir = TempDir::new("excl");
    let path = dir.path().join("capture-5.stdout.log");
    fs::write(&path, b"keep").unwrap();
    let mut c = Capture::new(5, &options(dir.path(), 2));
    c.write(Stream::Stdout, b"overflow");
    c.finish();
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::Unavailable);
    assert_eq!(fs::read(&path).unwrap(), b"keep");
}

#[test]
fn passing_the_spill_cap_removes_the_file() {
    let dir = TempDir::new("cap");
    let opts = CaptureOptions {
        spill_cap: 100,
        ..options(dir.path(), 10)
    };
    let mut c = Capture::new(1, &opts);
    c.write(Stream::Stdout, &[b'a'; 60]);
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::Active);
    c.write(Stream::Stdout, &[b'b'; 40]);
    assert_eq!(
        c.info(Stream::Stdout).spill,
        SpillState::Active,
        "exactly the cap is still kept"
    );
    c.write(Stream::Stdout, b"c");
    let info = c.info(Stream::Stdout);
    assert_eq!(info.spill, SpillState::Unavailable);
    assert_eq!(info.spill_path, None);
    assert!(
        dir.entries().is_empty(),
        "file removed: {:?}",
        dir.entries()
    );
    c.write(Stream::Stdout, b"more");
    c.finish();
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::Unavailable);
    assert_eq!(c.info(Stream::Stdout).total, 105);
    assert!(dir.entries().is_empty());
}

#[test]
fn a_first_chunk_past_the_spill_cap_creates_nothing() {
    let dir = TempDir::new("cap-first");
    let opts = CaptureOptions {
        spill_cap: 8,
        ..options(dir.path(), 4)
    };
    let mut c = Capture::new(1, &opts);
    c.write(Stream::Stdout, b"0123456789");
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::Unavailable);
    assert!(dir.entries().is_empty());
}

#[test]
fn a_directory_removed_before_the_overflow_is_made_again_for_the_spill() {
    let dir = TempDir::new("gone");
    let spill_dir: PathBuf = dir.path().join("spill");
    fs::create_dir(&spill_dir).unwrap();
    let mut c = Capture::new(1, &options(&spill_dir, 4));
    c.write(Stream::Stdout, b"abc");
    fs::remove_dir(&spill_dir).unwrap();
    c.write(Stream::Stdout, b"defgh");
    c.finish();
    let info = c.info(Stream::Stdout);
    assert_eq!(info.spill, SpillState::Complete);
    assert_eq!(fs::read(info.spill_path.unwrap()).unwrap(), b"abcdefgh");
    assert_eq!(
        fs::metadata(&spill_dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(c.tail(Stream::Stdout), b"efgh");
}

#[test]
fn a_directory_whose_parent_is_gone_too_is_made_again_with_it() {
    let dir = TempDir::new("gone-parent");
    let spill_dir: PathBuf = dir.path().join("root").join("spill");
    fs::create_dir_all(&spill_dir).unwrap();
    let mut c = Capture::new(1, &options(&spill_dir, 4));
    c.write(Stream::Stdout, b"abc");
    fs::remove_dir_all(dir.path().join("root")).unwrap();
    c.write(Stream::Stdout, b"defgh");
    c.finish();
    let info = c.info(Stream::Stdout);
    assert_eq!(info.spill, SpillState::Complete);
    assert_eq!(fs::read(info.spill_path.unwrap()).unwrap(), b"abcdefgh");
    for made in [dir.path().join("root"), spill_dir] {
        assert_eq!(
            fs::metadata(&made).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }
    assert_eq!(c.tail(Stream::Stdout), b"efgh");
}

#[test]
fn a_directory_two_levels_below_what_is_gone_makes_the_spill_unavailable() {
    let dir = TempDir::new("gone-grandparent");
    let spill_dir: PathBuf = dir.path().join("top").join("root").join("spill");
    fs::create_dir_all(&spill_dir).unwrap();
    let mut c = Capture::new(1, &options(&spill_dir, 4));
    c.write(Stream::Stdout, b"abc");
    fs::remove_dir_all(dir.path().join("top")).unwrap();
    c.write(Stream::Stdout, b"defgh");
    c.finish();
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::Unavailable);
    assert!(!dir.path().join("top").exists());
    assert_eq!(c.tail(Stream::Stdout), b"efgh");
}

#[test]
fn a_directory_removed_while_spilling_is_never_reported_complete() {
    let dir = TempDir::new("gone-active");
    let spill_dir: PathBuf = dir.path().join("spill");
    fs::create_dir(&spill_dir).unwrap();
    let mut c = Capture::new(1, &options(&spill_dir, 4));
    c.write(Stream::Stdout, b"abcdefgh");
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::Active);
    fs::remove_dir_all(&spill_dir).unwrap();
    c.write(Stream::Stdout, b"ijkl");
    c.finish();
    let info = c.info(Stream::Stdout);
    assert_eq!(info.spill, SpillState::Unavailable);
    assert_eq!(info.spill_path, None);
}

#[test]
fn a_file_replaced_underneath_is_left_alone_and_not_reported() {
    let dir = TempDir::new("replaced");
    let mut c = Capture::new(9, &options(dir.path(), 2));
    c.write(Stream::Stdout, b"abc");
    let path = dir.path().join("capture-9.stdout.log");
    let other = dir.path().join("other");
    fs::write(&other, b"someone else's").unwrap();
    fs::rename(&other, &path).unwrap();
    c.finish();
    assert_eq!(c.info(Stream::Stdout).spill, SpillState::Unavailable);
    assert_eq!(fs::read(&path).unwrap(), b"someone else's");
}

#[test]
fn a_full_disk_degrades_to_unavailable() {
    let dir = TempDir::new("enospc");
    let Some(mount) = Tmpfs::mount(dir.path(), "64k") else {
        println!("skipped a_full_disk_degrades_to_unavailable: mounting a tmpfs needs root");
        return;
    };
    let opts = CaptureOptions {
        stdout_cap: 1000,
        ..options(mount.path(), 1000)
    };
    let mut c = Capture::new(1, &opts);
    let chunk = vec![b'x'; 8192];
    let mut saw_active = false;
    for _ in 0..32 {
        c.write(Stream::Stdout, &chunk);
        saw_active |= c.info(Stream::Stdout).spill == SpillState::Active;
    }
    c.finish();
    assert!(saw_active, "the spill started before the disk filled");
    let info = c.info(Stream::Stdout);
    assert_eq!(info.spill, SpillState::Unavailable);
    assert_eq!(info.spill_path, None);
    assert_eq!(info.total, 32 * 8192);
    assert_eq!(
        c.tail(Stream::Stdout),
        vec![b'x'; 1000],
        "the tail keeps working"
    );
    let left: Vec<_> = fs::read_dir(mount.path()).unwrap().collect();
    assert!(left.is_empty(), "the partial file was removed");
}
