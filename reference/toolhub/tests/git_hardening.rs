//! The git tools never run a repository-configured program. A scratch repository arms every
//! known trap (fsmonitor, hooks, pager, external diff, diff driver command and textconv,
//! clean/smudge/process filters, a driver defined in an included file, a dotted, an empty
//! and a mixed-case driver name, a filter inside a submodule); each trap touches a marker file.
//! Plain git (the control) fires them; the tools, run first on the same dirty tree, fire none.
//! Real git, no mocks; skipped only when git is absent.

mod gitutil;

use std::collections::BTreeSet;
use std::path::Path;

use gitutil::{Repo, git_available};
use mcp_toolhub::contract::GitDiffInput;

/// A shell command (git appends `"$@"`) that records `name` in `fired` and then runs `tail`.
fn trap(fired: &Path, name: &str, tail: &str) -> String {
    format!("touch '{}/{name}'; {tail}", fired.display())
}

fn fired(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("read fired")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

fn clear(dir: &Path) {
    for name in fired(dir) {
        std::fs::remove_file(dir.join(name)).expect("clear");
    }
}

/// Arms the traps of the main scenario; returns the names plain git is expected to fire.
fn arm(repo: &Repo) -> Vec<&'static str> {
    let f = repo.fired();
    std::fs::write(
        repo.ws().join(".gitattributes"),
        "a.txt diff=evil filter=evil\nb.txt diff=tc\nd.txt filter=proc\n\
         e.txt filter=inc\ng.txt filter=my.dot\nh.txt diff=UpCase\ni.txt filter=\n",
    )
    .expect("attributes");
    for name in ["a", "b", "c", "d", "e", "g", "h", "i"] {
        repo.write(&format!("{name}.txt"), &format!("{name}\n"));
    }
    repo.git(&["add", "-A"]);
    repo.commit("base");
    let hooks = repo.dir().join("hooks");
    std::fs::create_dir_all(&hooks).expect("hooks dir");
    let hook = hooks.join("post-index-change");
    std::fs::write(&hook, format!("#!/bin/sh\n{}\n", trap(&f, "hook", "true"))).expect("hook");
    gitutil::make_executable(&hook);
    let include = repo.dir().join("extra.cfg");
    std::fs::write(
        &include,
        format!(
            "[filter \"inc\"]\n\tclean = {}\n[filter \"\"]\n\tclean = {}\n",
            trap(&f, "include-clean", "cat"),
            trap(&f, "empty-name-clean", "cat")
        ),
    )
    .expect("include");
    let config: Vec<(&str, String)> = vec![
        ("core.fsmonitor", trap(&f, "fsmonitor", "false")),
        ("core.hooksPath", hooks.display().to_string()),
        ("core.pager", trap(&f, "pager", "cat")),
        ("diff.external", trap(&f, "diff-external", "true")),
        ("diff.evil.command", trap(&f, "diff-command", "true")),
        ("diff.tc.textconv", trap(&f, "textconv", "cat")),
        ("diff.UpCase.textconv", trap(&f, "upcase-textconv", "cat")),
        ("filter.evil.clean", trap(&f, "clean", "cat")),
        ("filter.evil.smudge", trap(&f, "smudge", "cat")),
        ("filter.evil.required", "true".to_string()),
        ("filter.proc.process", trap(&f, "process", "false")),
        ("filter.my.dot.clean", trap(&f, "dotted-clean", "cat")),
        ("include.path", include.display().to_string()),
    ];
    for (key, value) in &config {
        repo.git(&["config", key, value]);
    }
    // Same-size edits: git must read (and filter) the content to see the change.
    for name in ["a", "b", "c", "d", "e", "g", "h", "i"] {
        repo.write(&format!("{name}.txt"), "Z\n");
    }
    repo.write("new.txt", "untracked\n");
    vec![
        "fsmonitor",
        "hook",
        "diff-external",
        "diff-command",
        "textconv",
        "upcase-textconv",
        "clean",
        "smudge",
        "process",
        "include-clean",
        "dotted-clean",
        "empty-name-clean",
    ]
}

#[test]
fn hardened_tools_fire_no_repository_configured_program() {
    if !git_available() {
        eprintln!("git not available; skipped");
        return;
    }
    let repo = Repo::init();
    let expected = arm(&repo);
    let hub = repo.hub();
    let f = repo.fired();
    clear(&f);

    // The tools first, on the armed, dirty tree.
    let status = hub.git_status().expect("status");
    let paths: Vec<&str> = status.entries.iter().map(|e| e.path.as_str()).collect();
    for p in [
        "a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "g.txt", "h.txt", "i.txt", "new.txt",
    ] {
        assert!(paths.contains(&p), "{p} missing from {paths:?}");
    }
    let diff = hub.git_diff(GitDiffInput::default()).expect("diff");
    assert_eq!(diff.additions, Some(8));
    assert_eq!(diff.deletions, Some(8));
    assert!(diff.raw.contains("+Z"), "{}", diff.raw);
    // Staging itself would run the failing process filter; only its markers are cleared.
    repo.git(&[
        "-c",
        "filter.proc.process=",
        "add",
        "b.txt",
        "c.txt",
        "h.txt",
    ]);
    clear(&f);
    let staged = hub
        .git_diff(GitDiffInput {
            path: None,
            staged: Some(true),
        })
        .expect("staged diff");
    assert_eq!(staged.additions, Some(3));
    for path in ["a.txt", "b.txt", "d.txt", "h.txt"] {
        hub.git_diff(GitDiffInput {
            path: Some(path.into()),
            staged: None,
        })
        .expect("path diff");
    }
    hub.git_status().expect("status again");
    assert!(fired(&f).is_empty(), "hardened git fired {:?}", fired(&f));

    // The control: plain git fires every trap on the same repository.
    repo.git(&["-c", "filter.proc.process=", "reset", "-q"]);
    clear(&f);
    let _ = repo.git_plain(&["status", "--porcelain", "--", "a.txt"]);
    for (args, _why) in [
        (vec!["diff", "--", "a.txt"], "driver command, smudge"),
        (vec!["diff", "--", "c.txt"], "diff.external"),
        (vec!["diff", "--no-ext-diff", "--", "b.txt"], "textconv"),
        (
            vec!["diff", "--no-ext-diff", "--", "h.txt"],
            "mixed-case driver",
        ),
        (vec!["diff", "--", "d.txt"], "process filter"),
        (vec!["diff", "--", "e.txt"], "included driver"),
        (vec!["diff", "--", "g.txt"], "dotted driver"),
        (vec!["diff", "--", "i.txt"], "empty driver name"),
    ] {
        let _ = repo.git_plain(&args);
    }
    let got = fired(&f);
    for name in expected {
        assert!(got.contains(name), "control did not fire {name}: {got:?}");
    }
}

#[test]
fn submodule_configuration_is_never_consulted() {
    if !git_available() {
        eprintln!("git not available; skipped");
        return;
    }
    let repo = Repo::init();
    let f = repo.fired();
    let sub = repo.add_submodule("sub", "s.txt filter=subevil\n");
    repo.git_in(
        &sub,
        &[
            "config",
            "filter.subevil.clean",
            &trap(&f, "sub-clean", "cat"),
        ],
    );
    repo.write("sub/s.txt", "Z\n"); // same size as the committed "s\n"
    clear(&f);

    let status = repo.hub().git_status().expect("status");
    assert!(status.clean, "{:?}", status.entries);
    let diff = repo.hub().git_diff(GitDiffInput::default()).expect("diff");
    assert_eq!(diff.raw, "");
    assert!(fired(&f).is_empty(), "hardened git fired {:?}", fired(&f));

    let _ = repo.git_plain(&["status", "--porcelain"]);
    assert!(
        fired(&f).contains("sub-clean"),
        "control did not recurse into the submodule"
    );
}
