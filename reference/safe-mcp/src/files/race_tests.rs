//! The race the existence checks hide: a destination that appears after `move_file` /
//! `apply_plan` checked it and before the rename. Injected with [`super::race_hook`], so
//! these tests fail if the rename stops refusing to overwrite (`RENAME_NOREPLACE` dropped
//! from `fsops::rename_noreplace`), a fault no other test notices (issue "mutation testing").
//!
//! They drive [`Organizer`]'s tool bodies directly, on the test's thread (the hook is per
//! thread; `FilesServer` would run them on the blocking pool).

#![allow(clippy::unwrap_used)]

use std::cell::Cell;
use std::fs;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use mcp_safety_core::policy::{Overrides, Policy, Server};
use serde_json::Value;

use super::{Organizer, race_hook};
use crate::result::Code;

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("ws")).unwrap();
        fs::create_dir(dir.path().join("state")).unwrap();
        Setup { dir }
    }

    fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.ws().join(rel)).unwrap()
    }

    fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.ws().join(rel)).is_ok()
    }

    fn journal(&self) -> Value {
        serde_json::from_slice(&fs::read(self.dir.path().join("state/journal.json")).unwrap())
            .unwrap()
    }

    fn organizer(&self) -> Organizer {
        let text = "audit_log = \"state/audit.jsonl\"\n\n[files]\nworkspace_root = \"ws\"\n\
            journal = \"state/journal.json\"\n\n[files.categories]\nDocuments = [\".txt\"]\n";
        let file = self.dir.path().join("policy.toml");
        fs::write(&file, text).unwrap();
        let policy = Policy::from_toml(text, &file, &Overrides::default(), Server::Files).unwrap();
        Organizer::new(policy, text).unwrap()
    }
}

/// "theirs", written at `ws/rel` by someone else.
fn theirs(ws: &Path, rel: &str) {
    fs::write(ws.join(rel), "theirs").unwrap();
}

/// Nothing was recorded: no history entry, no pending record left behind, and undo has
/// nothing to do.
fn nothing_recorded(s: &Setup, o: &Organizer) {
    let j = s.journal();
    assert_eq!(j["undo"], serde_json::json!([]), "journal: {j}");
    assert!(j.get("pending").is_none(), "journal: {j}");
    let undo = o.undo_last_action();
    assert!(!undo.ok, "{undo:?}");
    assert_eq!(undo.code, Code::InvalidRequest, "{undo:?}");
    assert_eq!(undo.reason, "nothing to undo");
}

#[test]
fn move_file_never_overwrites_a_destination_that_appears_after_the_check() {
    let s = Setup::new();
    fs::write(s.ws().join("a.txt"), "mine").unwrap();
    let o = s.organizer();
    let ws = s.ws();
    let fired = Rc::new(Cell::new(0));
    let seen = Rc::clone(&fired);
    let armed = race_hook::arm(move |m| {
        seen.set(seen.get() + 1);
        theirs(&ws, &m.dest);
    });
    let r = o.move_file("a.txt", "b.txt");
    drop(armed);
    assert_eq!(fired.get(), 1, "the hook ran before the one rename");
    assert!(!r.ok, "overwrote a destination: {r:?}");
    assert_eq!(r.code, Code::Conflict, "{r:?}");
    assert_eq!(s.read("b.txt"), "theirs");
    assert_eq!(s.read("a.txt"), "mine");
    nothing_recorded(&s, &o);
}

#[test]
fn apply_plan_rolls_back_when_a_later_destination_appears_after_the_check() {
    let s = Setup::new();
    fs::write(s.ws().join("a.txt"), "mine a").unwrap();
    fs::write(s.ws().join("b.txt"), "mine b").unwrap();
    let o = s.organizer();
    let plan = o.plan_organize();
    assert!(plan.ok, "{plan:?}");
    assert_eq!(plan.detail["move_count"], 2, "{plan:?}");
    let plan_id = plan.detail["plan_id"].as_str().unwrap().to_string();
    let ws = s.ws();
    let fired = Rc::new(Cell::new(0));
    let seen = Rc::clone(&fired);
    // Only the second move's destination appears (its folder exists by then: the first
    // move made it).
    let armed = race_hook::arm(move |m| {
        seen.set(seen.get() + 1);
        if seen.get() == 2 {
            assert_eq!(m.dest, "Documents/b.txt");
            theirs(&ws, &m.dest);
        }
    });
    let r = o.apply_plan(&plan_id);
    drop(armed);
    assert_eq!(fired.get(), 2, "the hook ran before both renames");
    assert!(!r.ok, "overwrote a destination: {r:?}");
    assert_eq!(r.code, Code::Conflict, "{r:?}");
    assert_eq!(s.read("Documents/b.txt"), "theirs");
    assert_eq!(s.read("b.txt"), "mine b");
    // The first move was rolled back.
    assert_eq!(s.read("a.txt"), "mine a");
    assert!(!s.exists("Documents/a.txt"));
    nothing_recorded(&s, &o);
}
