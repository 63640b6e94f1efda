//! Recovery of the write-ahead journal record, deterministically: a journal and a workspace
//! are laid out as a killed process would leave them, and the organizer must roll the
//! interrupted transition back (at start, or under the lock on the next call). Also: a
//! journal in the format written before the `pending` record existed still reads.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::PathBuf;

use mcp_safety_core::policy::{Overrides, Policy, Server};
use safe_mcp::files::Organizer;
use serde_json::{Value, json};

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

    fn ws(&self, p: &str) -> PathBuf {
        self.dir.path().join("ws").join(p)
    }

    fn put(&self, p: &str) {
        let full = self.ws(p);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, p.rsplit('/').next().unwrap()).unwrap();
    }

    fn at(&self, p: &str) -> bool {
        fs::symlink_metadata(self.ws(p)).is_ok()
    }

    fn journal_path(&self) -> PathBuf {
        self.dir.path().join("state/journal.json")
    }

    fn write_journal(&self, j: &Value) {
        fs::write(self.journal_path(), serde_json::to_vec(j).unwrap()).unwrap();
    }

    fn journal(&self) -> Value {
        serde_json::from_slice(&fs::read(self.journal_path()).unwrap()).unwrap()
    }

    fn organizer(&self) -> Organizer {
        let text = "audit_log = \"state/audit.jsonl\"\n\n[files]\nworkspace_root = \"ws\"\njournal = \"state/journal.json\"\n\n[files.categories]\nDocuments = [\".txt\"]\n";
        let file = self.dir.path().join("policy.toml");
        fs::write(&file, text).unwrap();
        let policy = Policy::from_toml(text, &file, &Overrides::default(), Server::Files).unwrap();
        Organizer::new(policy, text).unwrap()
    }
}

fn v(r: &safe_mcp::result::OperationResult) -> Value {
    serde_json::to_value(r).unwrap()
}

fn plan(names: &[&str]) -> Value {
    let moves: Vec<Value> = names
        .iter()
        .map(|n| json!({"src": n, "dest": format!("Documents/{n}")}))
        .collect();
    json!({"kind": "plan", "id": "p1", "moves": moves})
}

const NAMES: [&str; 4] = ["a.txt", "b.txt", "c.txt", "d.txt"];

#[test]
fn old_format_journal_still_reads() {
    let s = Setup::new();
    s.put("inbox/a.txt");
    s.write_journal(&json!({
        "undo": [{"kind": "move", "id": "m1", "moves": [{"src": "a.txt", "dest": "inbox/a.txt"}]}],
        "redo": []
    }));
    let o = s.organizer();
    let r = v(&o.undo_last_action());
    assert_eq!(r["ok"], true, "{r}");
    assert!(s.at("a.txt") && !s.at("inbox/a.txt"));
    assert!(
        s.journal().get("pending").is_none(),
        "no pending record when idle"
    );
}

#[test]
fn interrupted_apply_is_rolled_back_at_start() {
    let s = Setup::new();
    // Killed after two of four renames: a, b moved; c, d not yet.
    s.put("Documents/a.txt");
    s.put("Documents/b.txt");
    s.put("c.txt");
    s.put("d.txt");
    let p = plan(&NAMES);
    s.write_journal(&json!({
        "undo": [], "redo": [],
        "pending": {"transition": "new", "action": p, "renames": p["moves"]}
    }));
    let o = s.organizer();
    o.recover();
    for n in NAMES {
        assert!(s.at(n), "{n} back at its origin");
        assert!(!s.at(&format!("Documents/{n}")));
    }
    let j = s.journal();
    assert!(j.get("pending").is_none(), "{j}");
    assert_eq!(j["undo"], json!([]));
    let r = v(&o.undo_last_action());
    assert_eq!(r["code"], "INVALID_REQUEST", "nothing was recorded: {r}");
}

#[test]
fn interrupted_undo_is_rolled_back_on_the_next_call() {
    let s = Setup::new();
    // The plan was applied; the undo was killed after moving d and c back.
    s.put("Documents/a.txt");
    s.put("Documents/b.txt");
    s.put("c.txt");
    s.put("d.txt");
    let p = plan(&NAMES);
    let renames: Vec<Value> = p["moves"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|m| json!({"src": m["dest"], "dest": m["src"]}))
        .collect();
    s.write_journal(&json!({
        "undo": [p.clone()], "redo": [],
        "pending": {"transition": "undo", "action": p, "renames": renames}
    }));
    let o = s.organizer();
    // No explicit recover(): the undo call recovers under the lock first.
    let r = v(&o.undo_last_action());
    assert_eq!(r["ok"], true, "{r}");
    for n in NAMES {
        assert!(s.at(n), "{n} back at its origin");
    }
    let r = v(&o.redo_last_action());
    assert_eq!(r["ok"], true, "{r}");
    for n in NAMES {
        assert!(s.at(&format!("Documents/{n}")));
    }
    assert!(s.journal().get("pending").is_none());
}

#[test]
fn interrupted_redo_leaves_the_action_redoable() {
    let s = Setup::new();
    // Applied, undone, then the redo was killed after moving a.
    s.put("Documents/a.txt");
    s.put("b.txt");
    s.put("c.txt");
    s.put("d.txt");
    let p = plan(&NAMES);
    s.write_journal(&json!({
        "undo": [], "redo": [p.clone()],
        "pending": {"transition": "redo", "action": p, "renames": p["moves"]}
    }));
    let o = s.organizer();
    o.recover();
    for n in NAMES {
        assert!(s.at(n), "{n} back where the undo put it");
    }
    let r = v(&o.redo_last_action());
    assert_eq!(r["ok"], true, "{r}");
    let r = v(&o.undo_last_action());
    assert_eq!(r["ok"], true, "{r}");
    for n in NAMES {
        assert!(s.at(n));
    }
}

#[test]
fn a_completed_transition_is_journaled_without_pending() {
    let s = Setup::new();
    for n in NAMES {
        s.put(n);
    }
    let o = s.organizer();
    let id = v(&o.plan_organize())["detail"]["plan_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = v(&o.apply_plan(&id));
    assert_eq!(r["ok"], true, "{r}");
    let j = s.journal();
    assert!(j.get("pending").is_none(), "{j}");
    assert_eq!(j["undo"][0]["moves"].as_array().unwrap().len(), 4);
}

#[test]
fn recovery_moves_back_files_only() {
    let s = Setup::new();
    // Killed after moving a; since then a folder was made where c would have gone, and c
    // itself was removed. Only a, which the journal moved, goes back; the folder stays.
    s.put("Documents/a.txt");
    s.put("b.txt");
    fs::create_dir_all(s.ws("Documents/c.txt")).unwrap();
    s.put("d.txt");
    let p = plan(&NAMES);
    s.write_journal(&json!({
        "undo": [], "redo": [],
        "pending": {"transition": "new", "action": p, "renames": p["moves"]}
    }));
    s.organizer().recover();
    assert!(s.at("a.txt") && !s.at("Documents/a.txt"));
    assert!(
        s.ws("Documents/c.txt").is_dir(),
        "a folder is never moved back"
    );
    assert!(!s.at("c.txt"));
    assert!(s.journal().get("pending").is_none());
}
