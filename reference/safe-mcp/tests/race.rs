//! Issue 6: while the organizer moves files, another thread keeps swapping a symlink to a
//! folder outside the workspace into the moves' paths (the destination folder, and the
//! source file). Nothing outside the workspace may ever be touched, and no move may answer
//! `ok` while its file ended up outside.
//!
//! The swaps are atomic `renameat2(RENAME_EXCHANGE)` of the real entry with a prepared
//! symlink, so at every instant the real folder/file and the symlink both exist, under one
//! name or the other. Threads synchronise with a barrier and atomics only.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use mcp_safety_core::policy::{Overrides, Policy, Server};
use nix::fcntl::{RenameFlags, renameat2};
use safe_mcp::files::Organizer;
use serde_json::Value;

/// Mover iterations: each one is a `move_file`, a `move_file` + undo, or a plan + apply.
const ITERATIONS: usize = 200;

const POLICY: &str = r#"audit_log = "state/audit.jsonl"

[files]
workspace_root = "ws"
journal = "state/journal.json"

[files.categories]
dest = [".txt"]
"#;

/// What a path holds, never following a symlink: kind, mode and content (or link target).
#[derive(Debug, PartialEq, Eq)]
enum Node {
    Dir(u32),
    File(u32, Vec<u8>),
    Link(PathBuf),
}

/// Every entry under `dir` (relative names), walked without following symlinks.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Node> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Node>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(base).unwrap().to_path_buf();
            if m.file_type().is_symlink() {
                out.insert(rel, Node::Link(fs::read_link(&p).unwrap()));
            } else if m.is_dir() {
                out.insert(rel, Node::Dir(m.mode()));
                walk(base, &p, out);
            } else {
                out.insert(rel, Node::File(m.mode(), fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Atomically exchanges two entries of `dir`; false if either is missing.
fn exchange(dir: &fs::File, a: &str, b: &str) -> bool {
    renameat2(dir.as_fd(), a, dir.as_fd(), b, RenameFlags::RENAME_EXCHANGE).is_ok()
}

/// Raises the stop flag when dropped, so a failing assertion also ends the attacker.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

fn v(r: &safe_mcp::result::OperationResult) -> Value {
    serde_json::to_value(r).unwrap()
}

fn file_name(i: usize) -> String {
    format!("f{i}.txt")
}

fn content(i: usize) -> String {
    format!("file {i}\n")
}

#[test]
fn symlink_swaps_during_moves_never_touch_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    let ws = base.join("ws");
    let outside = base.join("outside");
    for d in ["ws", "ws/dest", "state", "outside", "outside/dest"] {
        fs::create_dir(base.join(d)).unwrap();
    }
    fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    fs::write(outside.join("dest/keep.txt"), "keep\n").unwrap();
    // The attacker's prepared symlinks: one to the outside folder (for `dest`), one to
    // the sentinel file (for each source file).
    symlink(&outside, ws.join("dest.alt")).unwrap();
    let before = snapshot(&outside);

    let policy_file = base.join("policy.toml");
    fs::write(&policy_file, POLICY).unwrap();
    let policy =
        Policy::from_toml(POLICY, &policy_file, &Overrides::default(), Server::Files).unwrap();
    let org = Organizer::new(policy, POLICY).unwrap();

    // Index of the current source file (usize::MAX: none yet), and the stop flag.
    let current = Arc::new(AtomicUsize::new(usize::MAX));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(2));

    let attacker = {
        let (current, stop, start) = (current.clone(), stop.clone(), start.clone());
        let ws_dir = fs::File::open(&ws).unwrap();
        thread::spawn(move || {
            let mut swaps = 0usize;
            start.wait();
            while !stop.load(Ordering::Acquire) {
                if exchange(&ws_dir, "dest", "dest.alt") {
                    swaps += 1;
                }
                let i = current.load(Ordering::Acquire);
                if i != usize::MAX {
                    let f = file_name(i);
                    if exchange(&ws_dir, &f, &format!("{f}.alt")) {
                        swaps += 1;
                    }
                }
                thread::yield_now();
            }
            swaps
        })
    };

    let stopper = StopOnDrop(stop);
    start.wait();
    let (mut ok, mut refused) = (0usize, 0usize);
    for i in 0..ITERATIONS {
        let f = file_name(i);
        fs::write(ws.join(&f), content(i)).unwrap();
        symlink(outside.join("secret.txt"), ws.join(format!("{f}.alt"))).unwrap();
        current.store(i, Ordering::Release);
        let answers: Vec<Value> = match i % 3 {
            0 => vec![v(&org.move_file(&f, &format!("dest/{f}")))],
            1 => {
                let r = v(&org.move_file(&f, &format!("dest/{f}")));
                if r["ok"] == true {
                    vec![r, v(&org.undo_last_action())]
                } else {
                    vec![r]
                }
            }
            _ => {
                let plan = v(&org.plan_organize());
                assert_eq!(plan["ok"], true, "{plan}");
                let id = plan["detail"]["plan_id"].as_str().unwrap().to_string();
                vec![v(&org.apply_plan(&id))]
            }
        };
        for r in &answers {
            if r["ok"] == true {
                ok += 1;
            } else {
                refused += 1;
            }
            // Whatever the answer, nothing landed in the outside folder.
            assert!(
                fs::symlink_metadata(outside.join(&f)).is_err()
                    && fs::symlink_metadata(outside.join("dest").join(&f)).is_err(),
                "{f} reached the outside folder; answer: {r}"
            );
        }
    }
    drop(stopper);
    let swaps = attacker.join().unwrap();

    // The outside folder is exactly as before: same entries, kinds, modes and contents.
    assert_eq!(snapshot(&outside), before, "the outside folder changed");

    // Every file is still inside the workspace with its content (none lost, none outside).
    let inside = snapshot(&ws);
    let contents: Vec<&[u8]> = inside
        .values()
        .filter_map(|n| match n {
            Node::File(_, c) => Some(c.as_slice()),
            _ => None,
        })
        .collect();
    for i in 0..ITERATIONS {
        let want = content(i);
        assert!(
            contents.contains(&want.as_bytes()),
            "{} is missing from the workspace",
            file_name(i)
        );
    }
    // No symlink in the workspace points anywhere but where the test made it point.
    for (p, n) in &inside {
        if let Node::Link(t) = n {
            assert!(
                *t == outside || *t == outside.join("secret.txt"),
                "{} -> {} was not made by the test",
                p.display(),
                t.display()
            );
        }
    }
    // A symlink never moves: a source swapped for one between its check and its rename
    // is put back by the organizer (see `fsops::rename_noreplace`), so none may sit in a
    // destination folder.
    let moved_links: Vec<_> = inside
        .iter()
        .filter(|(p, n)| matches!(n, Node::Link(_)) && p.components().count() > 1)
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(moved_links.is_empty(), "symlinks moved: {moved_links:?}");
    let moved_links = moved_links.len();
    assert!(swaps > 0, "the attacker never swapped anything");
    assert!(ok > 0, "no move ever succeeded ({refused} refused)");
    eprintln!(
        "race: {ITERATIONS} iterations, {swaps} swaps, {ok} ok, {refused} refused, \
         {moved_links} symlink(s) moved"
    );
}
