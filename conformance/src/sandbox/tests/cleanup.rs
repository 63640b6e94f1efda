//! Cleanup: dropping a sandbox removes everything but the targets outside it, even read-only
//! parts; `close` and keeping a sandbox.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;

use super::*;

#[test]
fn drop_removes_everything_but_outside_targets() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("keep.txt"), "keep").unwrap();
    let target = outside.path().to_string_lossy().into_owned();
    let sandbox = Sandbox::create(
        &spec(&format!(
            "workspace:\n  files: {{locked/inner/f.txt: x}}\n  symlinks: {{out: '{target}', \
             locked/out: '{target}'}}"
        )),
        &no_expand,
    )
    .unwrap();
    let root = sandbox.root().to_path_buf();
    let locked = sandbox.workspace().join("locked");
    fs::set_permissions(locked.join("inner"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o500)).unwrap();
    fs::set_permissions(sandbox.workspace(), fs::Permissions::from_mode(0o555)).unwrap();
    // The outside folder is read-only too: cleanup must not chmod it through the link.
    fs::set_permissions(outside.path(), fs::Permissions::from_mode(0o555)).unwrap();

    drop(sandbox);

    assert!(!root.exists(), "sandbox root must be gone");
    assert_eq!(
        fs::read_to_string(outside.path().join("keep.txt")).unwrap(),
        "keep"
    );
    let mode = fs::metadata(outside.path()).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o555);
    fs::set_permissions(outside.path(), fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn close_and_keep() {
    let sandbox = Sandbox::create(&SandboxSpec::default(), &no_expand).unwrap();
    let root = sandbox.root().to_path_buf();
    fs::set_permissions(sandbox.state(), fs::Permissions::from_mode(0o000)).unwrap();
    sandbox.close().unwrap();
    assert!(!root.exists());

    let kept = Sandbox::create(&SandboxSpec::default(), &no_expand)
        .unwrap()
        .keep();
    assert!(kept.join("workspace").is_dir());
    fs::remove_dir_all(&kept).unwrap();
}
