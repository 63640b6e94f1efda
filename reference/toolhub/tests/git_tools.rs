//! `git.status` and `git.diff` against real scratch repositories (skipped when git is absent):
//! parsing, branch forms, path validation, repository pinning, bounded output, audit.

mod gitutil;

use gitutil::{Repo, git_available};
use mcp_toolhub::contract::{AuditRecentInput, GitDiffInput};
use mcp_toolhub::error::ToolError;
use mcp_toolhub::tools::git::codes;

macro_rules! require_git {
    () => {
        if !git_available() {
            eprintln!("git not available; skipped");
            return;
        }
    };
}

fn refused_code<T: std::fmt::Debug>(r: Result<T, ToolError>) -> (String, String) {
    match r {
        Err(ToolError::Refused(e)) => (e.code, e.message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn diff(path: Option<&str>, staged: bool) -> GitDiffInput {
    GitDiffInput {
        path: path.map(String::from),
        staged: Some(staged),
    }
}

/// A repository with one commit of `a.txt` ("one\ntwo\n").
fn committed() -> Repo {
    let repo = Repo::init();
    repo.write("a.txt", "one\ntwo\n");
    repo.git(&["add", "-A"]);
    repo.commit("c1");
    repo
}

#[test]
fn not_a_repository_is_refused_even_inside_a_parent_repository() {
    require_git!();
    let plain = Repo::empty();
    let hub = plain.hub();
    let (c, m) = refused_code(hub.git_status());
    assert_eq!(c, codes::NOT_A_GIT_REPOSITORY, "{m}");
    assert_eq!(
        refused_code(hub.git_diff(GitDiffInput::default())).0,
        codes::NOT_A_GIT_REPOSITORY
    );
    // The workspace is a subdirectory of a repository: git must not discover the parent.
    let outer = committed();
    outer.write("inner/x.txt", "x\n");
    let ws = outer.ws().join("inner").display().to_string();
    let state = outer.dir().join("state2").display().to_string();
    let config = mcp_toolhub::config::Config::from_lookup(&|k| match k {
        "TOOLHUB_WORKSPACE_ROOT" => Some(ws.clone()),
        "TOOLHUB_STATE_ROOT" => Some(state.clone()),
        _ => None,
    })
    .expect("config");
    let inner = mcp_toolhub::hub::Hub::new(config);
    assert_eq!(
        refused_code(inner.git_status()).0,
        codes::NOT_A_GIT_REPOSITORY
    );
}

#[test]
fn status_entries_branch_and_raw() {
    require_git!();
    let repo = committed();
    let hub = repo.hub();
    let clean = hub.git_status().expect("status");
    assert!(clean.clean && clean.entries.is_empty());
    assert_eq!(clean.path, ".");
    assert_eq!(clean.branch.as_deref(), Some("main"));
    assert_eq!(clean.raw, "## main\n");

    repo.write("a.txt", "one\nTWO\n");
    repo.write("deep/dir/new file.txt", "n\n");
    repo.write("b.txt", "b\n");
    repo.git(&["add", "b.txt"]);
    repo.commit("c2");
    repo.git(&["mv", "b.txt", "renamed -> b.txt"]);
    let st = hub.git_status().expect("status");
    assert!(!st.clean);
    let got: Vec<(&str, &str)> = st
        .entries
        .iter()
        .map(|e| (e.status.as_str(), e.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (" M", "a.txt"),
            ("R ", "renamed -> b.txt"),
            ("??", "deep/dir/new file.txt"),
        ]
    );
    // raw is git's own porcelain v1 text (quoted paths, "old -> new" renames).
    assert_eq!(
        st.raw,
        "## main\n M a.txt\nR  b.txt -> \"renamed -> b.txt\"\n?? \"deep/dir/new file.txt\"\n"
    );
}

#[test]
fn unborn_and_detached_branches() {
    require_git!();
    let repo = Repo::init();
    let st = repo.hub().git_status().expect("status");
    assert_eq!(st.branch.as_deref(), Some("main"));
    assert!(st.clean);
    let repo = committed();
    repo.git(&["checkout", "-q", "--detach"]);
    let st = repo.hub().git_status().expect("status");
    assert_eq!(st.branch, None);
    assert!(st.raw.starts_with("## HEAD (no branch)"), "{}", st.raw);
}

#[test]
fn diff_totals_staged_path_and_binary() {
    require_git!();
    let repo = committed();
    let hub = repo.hub();
    let empty = hub.git_diff(GitDiffInput::default()).expect("diff");
    assert_eq!(
        (empty.path.as_str(), empty.staged, empty.raw.as_str()),
        (".", false, "")
    );
    assert_eq!(
        (empty.additions, empty.deletions, empty.binary),
        (Some(0), Some(0), Some(false))
    );

    repo.write("a.txt", "one\nTWO\nthree\n");
    repo.write("c.txt", "c\n");
    repo.git(&["add", "c.txt"]);
    std::fs::write(repo.ws().join("bin.dat"), [0u8, 1, 2, 0, 255]).expect("bin");
    repo.git(&["add", "bin.dat"]);

    let work = hub.git_diff(diff(None, false)).expect("diff");
    assert_eq!((work.additions, work.deletions), (Some(2), Some(1)));
    assert_eq!(work.binary, Some(false));
    assert!(work.raw.contains("-two\n+TWO\n+three\n"), "{}", work.raw);

    let staged = hub.git_diff(diff(None, true)).expect("staged");
    assert!(staged.staged);
    assert_eq!((staged.additions, staged.binary), (Some(1), Some(true)));
    assert!(staged.raw.contains("Binary files"), "{}", staged.raw);

    let only_c = hub.git_diff(diff(Some("./c.txt"), true)).expect("path");
    assert_eq!(only_c.path, "c.txt");
    assert_eq!((only_c.additions, only_c.binary), (Some(1), Some(false)));
    assert!(!only_c.raw.contains("bin.dat"));
}

#[test]
fn diff_paths_are_confined_and_literal() {
    require_git!();
    let repo = committed();
    let hub = repo.hub();
    for (path, code) in [
        ("../a.txt", "PATH_TRAVERSAL"),
        ("x/../a.txt", "PATH_TRAVERSAL"),
        ("/etc/passwd", "PATH_ABSOLUTE"),
        ("a\\b", "PATH_INVALID"),
    ] {
        assert_eq!(
            refused_code(hub.git_diff(diff(Some(path), false))).0,
            code,
            "{path}"
        );
    }
    std::os::unix::fs::symlink("a.txt", repo.ws().join("link")).expect("symlink");
    std::os::unix::fs::symlink("/tmp", repo.ws().join("dirlink")).expect("symlink");
    assert_eq!(
        refused_code(hub.git_diff(diff(Some("link"), false))).0,
        "SYMLINK_REFUSED"
    );
    assert_eq!(
        refused_code(hub.git_diff(diff(Some("dirlink/x"), false))).0,
        "SYMLINK_REFUSED"
    );
    // A deleted file is a valid diff path.
    std::fs::remove_file(repo.ws().join("a.txt")).expect("rm");
    let gone = hub.git_diff(diff(Some("a.txt"), false)).expect("deleted");
    assert_eq!((gone.additions, gone.deletions), (Some(0), Some(2)));
    // Pathspec magic is off: "*" and ":(top)" are literal names that match nothing.
    for literal in ["*", ":(top)a.txt", "*.txt"] {
        let d = hub.git_diff(diff(Some(literal), false)).expect("literal");
        assert_eq!(d.raw, "", "{literal}");
    }
}

#[test]
fn configured_worktree_and_symlinked_git_dir_cannot_leave_the_workspace() {
    require_git!();
    let repo = committed();
    let elsewhere = repo.dir().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("secret.txt"), "s\n").expect("write");
    repo.git(&["config", "core.worktree", &elsewhere.display().to_string()]);
    let st = repo.hub().git_status().expect("status");
    assert!(st.clean, "{:?}", st.entries);

    let other = committed();
    std::fs::rename(other.ws().join(".git"), other.dir().join("real-git")).expect("mv");
    std::os::unix::fs::symlink(other.dir().join("real-git"), other.ws().join(".git"))
        .expect("symlink");
    assert_eq!(refused_code(other.hub().git_status()).0, "SYMLINK_REFUSED");
}

#[test]
fn broken_or_unneutralisable_configuration_fails_without_leaking_the_root() {
    require_git!();
    let repo = committed();
    let config = repo.ws().join(".git/config");
    let original = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        format!("{original}\n[filter \"a=b\"]\n\tclean = false\n"),
    )
    .expect("write");
    let (code, message) = refused_code(repo.hub().git_status());
    assert_eq!(code, codes::GIT_FAILED);
    assert!(message.contains("cannot be neutralised"), "{message}");

    std::fs::write(&config, format!("{original}\n[broken\n")).expect("write");
    let (code, message) = refused_code(repo.hub().git_diff(GitDiffInput::default()));
    assert_eq!(code, codes::GIT_FAILED);
    let root = repo.ws().display().to_string();
    assert!(!message.contains(&root), "{message}");
    assert!(message.contains("<workspace>"), "{message}");
}

#[test]
fn a_configuration_too_long_to_read_whole_fails_closed() {
    require_git!();
    // 1,400 long variable names: `git config --name-only --list` passes the 256 KiB capture,
    // and a driver listed after the cut could not be neutralised. Git is not run.
    let repo = committed();
    let config = repo.ws().join(".git/config");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("[pad]\n");
    for i in 0..1_400 {
        text.push_str(&format!("\tv{i:04}{} = 1\n", "x".repeat(195)));
    }
    std::fs::write(&config, text).expect("write");
    let (code, message) = refused_code(repo.hub().git_status());
    assert_eq!(code, codes::GIT_FAILED);
    assert!(message.contains("git was not run"), "{message}");
}

#[test]
fn large_output_is_bounded_with_the_marker() {
    require_git!();
    let repo = committed();
    let big: String = (0..40_000).map(|i| format!("line {i:06}\n")).collect();
    repo.write("a.txt", &big);
    let d = repo.hub().git_diff(GitDiffInput::default()).expect("diff");
    let marker = d.raw.rfind("\n[ToolHub discarded ").expect("marker");
    assert!(d.raw.ends_with(" output bytes]"));
    assert!(marker <= 262_144);
    assert_eq!(d.additions, Some(40_000));
    assert_eq!(d.deletions, Some(2));
}

#[test]
fn totals_from_a_cut_listing_are_absent_not_wrong() {
    require_git!();
    // 1,400 changed files with long names: the --numstat listing alone passes the 256 KiB
    // capture, so its totals would be counted from part of it.
    let repo = committed();
    let name = |i: usize| format!("f{i:04}{}.txt", "x".repeat(215));
    for i in 0..1_400 {
        repo.write(&name(i), "old\n");
    }
    repo.git(&["add", "-A"]);
    repo.commit("many");
    for i in 0..1_400 {
        repo.write(&name(i), "new\n");
    }
    let d = repo.hub().git_diff(GitDiffInput::default()).expect("diff");
    assert!(d.raw.ends_with(" output bytes]"), "the diff is cut too");
    assert_eq!((d.additions, d.deletions, d.binary), (None, None, None));
}

#[test]
fn each_call_is_audited_without_output() {
    require_git!();
    let repo = committed();
    repo.write("a.txt", "SECRET-CONTENT\n");
    let hub = repo.hub();
    hub.git_status().expect("status");
    hub.git_diff(diff(Some("a.txt"), false)).expect("diff");
    let _ = hub.git_diff(diff(Some("../x"), false));
    let events = hub
        .audit_recent(AuditRecentInput { limit: Some(10) })
        .expect("audit")
        .events;
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["git.status", "git.diff", "git.diff"]);
    let text = serde_json::to_string(&events).expect("json");
    assert!(!text.contains("SECRET-CONTENT"));
    assert!(!text.contains(&repo.ws().display().to_string()));
    let status = &events[0];
    assert_eq!(status["outcome"], "SUCCEEDED");
    let runs = status["details"]["runs"].as_array().expect("runs");
    let steps: Vec<&str> = runs
        .iter()
        .map(|r| r["step"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(steps, ["config", "status", "status_raw"]);
    assert_eq!(runs[1]["executable"], "git");
    assert_eq!(runs[1]["returncode"], 0);
    assert!(
        runs[1]["capture"]["stdout"]["total_bytes"]
            .as_u64()
            .is_some()
    );
    assert_eq!(events[2]["outcome"], "REFUSED");
    assert_eq!(events[2]["details"]["error_code"], "PATH_TRAVERSAL");
}
