//! The file organizer's logic (`safe_mcp::files::Organizer`) on real temporary folders:
//! plans, all-or-nothing apply, no-overwrite moves, the two rule layers, undo/redo and the
//! journal across a restart, the fail-closed audit trail.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

use mcp_safety_core::policy::{Overrides, Policy, Server};
use safe_mcp::files::Organizer;
use serde_json::{Value, json};

struct Setup {
    dir: tempfile::TempDir,
}

const RULES: &str = r#"
[files.categories]
Documents = [".pdf", ".txt"]
Images = [".png", ".jpg"]

[[files.skip]]
layer = "restraint"
when = ["dotfile"]
reason = "dotfiles are configuration"

[[files.skip]]
layer = "restraint"
when = ["installer"]
reason = "installers stay"
"#;

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("ws")).unwrap();
        fs::create_dir(dir.path().join("state")).unwrap();
        fs::create_dir(dir.path().join("outside")).unwrap();
        fs::write(dir.path().join("outside/secret.pdf"), "secret\n").unwrap();
        let s = Setup { dir };
        s.write("report.pdf", "report\n");
        s.write("photo.png", "photo\n");
        s.write("setup.exe", "MZ\n");
        s.write(".bashrc", "rc\n");
        std::os::unix::fs::symlink(s.path("outside/secret.pdf"), s.ws("link.pdf")).unwrap();
        s
    }

    fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    fn ws(&self, p: &str) -> PathBuf {
        self.dir.path().join("ws").join(p)
    }

    fn write(&self, p: &str, content: &str) {
        let full = self.ws(p);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, content).unwrap();
    }

    fn read(&self, p: &str) -> Option<String> {
        fs::read_to_string(self.ws(p)).ok()
    }

    fn entries(&self, p: &str) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(self.ws(p))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn organizer_with(&self, audit: &str, extra: &str) -> Organizer {
        let text = format!(
            "audit_log = \"{audit}\"\n\n[files]\nworkspace_root = \"ws\"\njournal = \"state/journal.json\"\n{extra}{RULES}"
        );
        let file = self.path("policy.toml");
        fs::write(&file, &text).unwrap();
        let policy = Policy::from_toml(&text, &file, &Overrides::default(), Server::Files).unwrap();
        Organizer::new(policy, &text).unwrap()
    }

    fn organizer(&self) -> Organizer {
        self.organizer_with("state/audit.jsonl", "")
    }
}

fn v(r: &safe_mcp::result::OperationResult) -> Value {
    serde_json::to_value(r).unwrap()
}

fn plan_id(r: &Value) -> String {
    r["detail"]["plan_id"].as_str().unwrap().to_string()
}

#[test]
fn plan_changes_nothing_and_reports_both_layers() {
    let s = Setup::new();
    let o = s.organizer();
    let before = s.entries(".");
    let r = v(&o.plan_organize());
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["detail"]["move_count"], 2);
    assert_eq!(r["detail"]["skip_count"], 3);
    let moves = r["detail"]["moves"].as_array().unwrap();
    assert!(moves.contains(&json!({"src": "report.pdf", "dest": "Documents/report.pdf", "category": "Documents", "size": 7})));
    let skips = r["detail"]["skips"].as_array().unwrap();
    let code_of = |n: &str| {
        skips
            .iter()
            .find(|k| k["name"] == n)
            .map(|k| k["code"].clone())
            .unwrap()
    };
    assert_eq!(code_of(".bashrc"), "NEEDS_EXPLICIT_REQUEST");
    assert_eq!(code_of("setup.exe"), "NEEDS_EXPLICIT_REQUEST");
    assert_eq!(code_of("link.pdf"), "POLICY_DENIED");
    assert_eq!(s.entries("."), before);
    let l = v(&o.list_files(None));
    assert_eq!(l["ok"], true);
    assert!(l.to_string().contains("installers stay"));
    assert_eq!(s.entries("."), before);
}

#[test]
fn apply_is_all_or_nothing_and_single_use() {
    let s = Setup::new();
    let o = s.organizer();
    let id = plan_id(&v(&o.plan_organize()));
    s.write("photo.png", "edited\n");
    let r = v(&o.apply_plan(&id));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
    assert!(!s.ws("Documents").exists(), "nothing made");

    let id = plan_id(&v(&o.plan_organize()));
    let r = v(&o.apply_plan(&id));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["detail"]["moved"], 2);
    assert_eq!(r["detail"]["planned"], 2);
    assert_eq!(r["detail"]["plan_id"], id.as_str());
    assert_eq!(s.read("Documents/report.pdf").as_deref(), Some("report\n"));
    assert_eq!(s.read("Images/photo.png").as_deref(), Some("edited\n"));
    assert!(
        fs::symlink_metadata(s.ws("link.pdf"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let again = v(&o.apply_plan(&id));
    assert_eq!(again["ok"], false);
}

#[test]
fn a_destination_appearing_after_planning_refuses_the_plan() {
    let s = Setup::new();
    let o = s.organizer();
    let id = plan_id(&v(&o.plan_organize()));
    s.write("Images/photo.png", "newcomer\n");
    let r = v(&o.apply_plan(&id));
    assert_eq!(r["ok"], false);
    assert_eq!(s.read("Images/photo.png").as_deref(), Some("newcomer\n"));
    assert_eq!(s.read("photo.png").as_deref(), Some("photo\n"));
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
    assert_eq!(s.entries("Images"), ["photo.png"]);
}

#[test]
fn move_file_obeys_protection_only_and_never_overwrites() {
    let s = Setup::new();
    let o = s.organizer();
    fs::create_dir(s.ws("Documents")).unwrap();
    let r = v(&o.move_file("setup.exe", "Documents/setup.exe"));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["detail"],
        json!({"src": "setup.exe", "dest": "Documents/setup.exe", "moved": 1})
    );
    let r = v(&o.move_file("link.pdf", "Documents/link.pdf"));
    assert_eq!(r["code"], "POLICY_DENIED");
    s.write("Documents/report.pdf", "old\n");
    let r = v(&o.move_file("report.pdf", "Documents/report.pdf"));
    assert_eq!(r["ok"], false);
    assert_eq!(s.read("Documents/report.pdf").as_deref(), Some("old\n"));
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
    assert_eq!(s.entries("Documents"), ["report.pdf", "setup.exe"]);
    let r = v(&o.move_file("photo.png", "Nowhere/photo.png"));
    assert_eq!(r["ok"], false, "move_file makes no folders: {r}");
    assert!(!s.ws("Nowhere").exists());
}

#[test]
fn escapes_are_refused() {
    let s = Setup::new();
    let o = s.organizer();
    std::os::unix::fs::symlink(s.path("outside"), s.ws("out")).unwrap();
    let outside = s.path("outside/x.pdf");
    for (src, dest) in [
        ("report.pdf", "../x.pdf"),
        ("report.pdf", outside.to_str().unwrap()),
        (s.path("outside/secret.pdf").to_str().unwrap(), "stolen.pdf"),
    ] {
        let r = v(&o.move_file(src, dest));
        assert_eq!(r["code"], "PATH_ESCAPE", "{src} -> {dest}: {r}");
    }
    let r = v(&o.move_file("report.pdf", "out/x.pdf"));
    assert_eq!(r["ok"], false);
    assert_eq!(fs::read_dir(s.path("outside")).unwrap().count(), 1);
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
}

#[test]
fn undo_redo_and_the_journal_survives_a_restart() {
    let s = Setup::new();
    let o = s.organizer();
    fs::create_dir(s.ws("Archive")).unwrap();
    let id = plan_id(&v(&o.plan_organize()));
    assert_eq!(v(&o.apply_plan(&id))["ok"], true);
    let r = v(&o.undo_last_action());
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
    assert!(s.read("Images/photo.png").is_none());
    assert_eq!(v(&o.redo_last_action())["ok"], true);
    assert_eq!(s.read("Images/photo.png").as_deref(), Some("photo\n"));
    assert_eq!(
        v(&o.move_file("Documents/report.pdf", "Archive/report.pdf"))["ok"],
        true
    );
    drop(o);
    assert!(s.path("state/journal.json").is_file());

    let o = s.organizer();
    assert_eq!(v(&o.undo_last_action())["ok"], true);
    assert_eq!(s.read("Documents/report.pdf").as_deref(), Some("report\n"));
    assert_eq!(v(&o.undo_last_action())["ok"], true);
    assert_eq!(s.read("photo.png").as_deref(), Some("photo\n"));
    // New work clears the redo stack.
    assert_eq!(
        v(&o.move_file("photo.png", "Archive/photo.png"))["ok"],
        true
    );
    let r = v(&o.redo_last_action());
    assert_eq!(r["ok"], false);
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
}

/// A setup where `move_file` has just moved report.pdf into Archive/ (the action to undo).
fn archived() -> (Setup, Organizer) {
    let s = Setup::new();
    let o = s.organizer();
    fs::create_dir(s.ws("Archive")).unwrap();
    assert_eq!(
        v(&o.move_file("report.pdf", "Archive/report.pdf"))["ok"],
        true
    );
    (s, o)
}

#[test]
fn undo_never_overwrites_a_newcomer() {
    let (s, o) = archived();
    s.write("report.pdf", "newcomer\n");
    let r = v(&o.undo_last_action());
    assert_eq!(r["ok"], false);
    assert_eq!(s.read("report.pdf").as_deref(), Some("newcomer\n"));
    assert_eq!(s.read("Archive/report.pdf").as_deref(), Some("report\n"));
}

#[test]
fn audit_records_and_fail_closed() {
    let s = Setup::new();
    let o = s.organizer();
    assert_eq!(
        v(&o.move_file("link.pdf", "x.pdf"))["code"],
        "POLICY_DENIED"
    );
    let log = fs::read_to_string(s.path("state/audit.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2);
    assert!(log.contains("move_file") && log.contains("POLICY_DENIED"));

    let o = s.organizer_with("state/missing/audit.jsonl", "");
    let r = v(&o.move_file("report.pdf", "moved.pdf"));
    assert_eq!(r["code"], "AUDIT_UNAVAILABLE");
    assert!(Path::new(&s.ws("report.pdf")).exists());
    assert!(!s.ws("moved.pdf").exists());
}

#[test]
fn protection_rules_bind_move_file_and_unknown_conditions_are_refused() {
    let s = Setup::new();
    let o = s.organizer_with(
        "state/audit.jsonl",
        "[[files.skip]]\nlayer = \"protection\"\nwhen = [\"unsafe-name\"]\nreason = \"odd name\"\n",
    );
    s.write("-rf.txt", "x\n");
    let r = v(&o.move_file("-rf.txt", "ok.txt"));
    assert_eq!(r["code"], "POLICY_DENIED", "{r}");
    assert_eq!(r["reason"], "odd name");

    let text = "[files]\nworkspace_root = \"ws\"\njournal = \"state/j.json\"\n[[files.skip]]\nlayer = \"restraint\"\nwhen = [\"bogus\"]\n";
    let file = s.path("policy.toml");
    let policy = Policy::from_toml(text, &file, &Overrides::default(), Server::Files).unwrap();
    assert!(Organizer::new(policy, text).is_err());
}

#[test]
fn list_files_names_subfolder_paths_and_treats_dot_as_the_workspace() {
    let s = Setup::new();
    s.write("inbox/a.txt", "a\n");
    let o = s.organizer();
    // Each entry of a subfolder carries its workspace-relative path, which move_file accepts.
    fs::create_dir(s.ws("inbox/sub")).unwrap();
    std::os::unix::fs::symlink("a.txt", s.ws("inbox/link")).unwrap();
    let r = v(&o.list_files(Some("inbox")));
    assert_eq!(r["ok"], true, "{r}");
    let mut seen: Vec<(String, String)> = r["detail"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().into(),
                e["kind"].as_str().unwrap().into(),
            )
        })
        .collect();
    seen.sort();
    let want = [
        ("inbox/a.txt", "file"),
        ("inbox/link", "symlink"),
        ("inbox/sub", "dir"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(p, k)| (p.to_string(), k.to_string()))
        .collect();
    assert_eq!(seen, want, "{r}");
    let root = v(&o.list_files(None));
    let named = |r: &Value| -> Vec<String> {
        let mut n: Vec<String> = r["detail"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n
    };
    assert!(named(&root).contains(&"report.pdf".to_string()), "{root}");
    // "" and "." name the workspace, as no subdir does.
    for subdir in ["", "."] {
        let r = v(&o.list_files(Some(subdir)));
        assert_eq!(r["ok"], true, "subdir {subdir:?}: {r}");
        assert_eq!(named(&r), named(&root), "subdir {subdir:?}");
    }
}

#[test]
fn move_file_refuses_a_path_that_names_the_workspace_itself() {
    let s = Setup::new();
    let o = s.organizer();
    let before = s.entries(".");
    let ws = s.ws("");
    let ws = ws.to_str().unwrap();
    for (src, dest) in [(".", "moved"), ("report.pdf", "./"), (ws, "moved")] {
        let r = v(&o.move_file(src, dest));
        assert_eq!(r["ok"], false, "{src} -> {dest}: {r}");
        assert_eq!(r["code"], "INVALID_REQUEST", "{src} -> {dest}: {r}");
        // The reason says why, rather than that something does not exist.
        let reason = r["reason"].as_str().unwrap();
        assert!(
            reason.contains("names the workspace itself"),
            "{src} -> {dest}: {r}"
        );
    }
    assert_eq!(s.entries("."), before);
}

#[test]
fn a_folder_refusal_names_the_folder_as_the_caller_wrote_it() {
    let s = Setup::new();
    let o = s.organizer();
    let r = v(&o.move_file("report.pdf/x.txt", "y.txt"));
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r.to_string().contains("\"report.pdf is not a folder"),
        "{r}"
    );
}

#[test]
fn undo_refuses_when_a_folder_stands_where_the_file_was_moved() {
    let (s, o) = archived();
    fs::remove_file(s.ws("Archive/report.pdf")).unwrap();
    fs::create_dir(s.ws("Archive/report.pdf")).unwrap();
    let r = v(&o.undo_last_action());
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "CONFLICT", "{r}");
    assert!(s.ws("Archive/report.pdf").is_dir());
    assert!(!s.ws("report.pdf").exists());
}

#[test]
fn an_unreadable_journal_refuses_every_move_and_is_left_alone() {
    let s = Setup::new();
    // A journal that cannot be read is not an empty one: the undo history it holds would be
    // lost on the next save. Here it cannot be opened (a symlink to itself: ELOOP; running
    // as root, permissions would not stop a read), and a folder in its place.
    let journal = s.path("state/journal.json");
    std::os::unix::fs::symlink(&journal, &journal).unwrap();
    let o = s.organizer();
    let r = v(&o.move_file("report.pdf", "moved.pdf"));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
    assert!(!s.ws("moved.pdf").exists());
    assert!(
        fs::symlink_metadata(&journal)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    fs::remove_file(&journal).unwrap();
    fs::create_dir(&journal).unwrap();
    let r = v(&o.move_file("report.pdf", "moved.pdf"));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(s.read("report.pdf").as_deref(), Some("report\n"));
    assert!(journal.is_dir());
}
