//! Seeding a git repository, and git failures naming the command.

#![allow(clippy::unwrap_used)]

use std::fs;

use super::*;
use crate::sandbox::seed::Seeder;

fn git_spec() -> SandboxSpec {
    spec(
        r#"
workspace:
  git:
    branch: trunk
    config:
      core.fileMode: "false"
    commits:
      - message: first
        files:
          README.md: "v1\n"
          old.txt: "old\n"
          src/lib.rs: "// lib\n"
      - message: second
        files:
          README.md: "v2\n"
          old.txt: null
    staged:
      new.txt: "staged\n"
      src/lib.rs: null
  files:
    README.md: "v3 (modified)\n"
    untracked.txt: "u\n"
"#,
    )
}

#[test]
fn seeds_a_git_repository() {
    let sandbox = Sandbox::create(&git_spec(), &no_expand).unwrap();
    let ws = sandbox.workspace();
    let vars = sandbox.variables();
    let seeder = Seeder {
        expand: &no_expand,
        vars: &vars,
        home: sandbox.home(),
        tmp: sandbox.tmp(),
    };
    let git = |args: &[&str]| seeder.git(ws, 0, args).unwrap();

    assert_eq!(git(&["rev-list", "--count", "HEAD"]).trim(), "2");
    assert_eq!(git(&["log", "--format=%s"]), "second\nfirst\n");
    assert_eq!(git(&["branch", "--show-current"]).trim(), "trunk");
    assert_eq!(git(&["config", "--local", "core.fileMode"]).trim(), "false");
    let status = git(&["status", "--porcelain"]);
    let mut lines: Vec<&str> = status.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            " M README.md",
            "?? untracked.txt",
            "A  new.txt",
            "D  src/lib.rs"
        ],
        "{status}"
    );
    assert!(!ws.join("old.txt").exists() && !ws.join("src/lib.rs").exists());
    assert_eq!(
        fs::read_to_string(ws.join("README.md")).unwrap(),
        "v3 (modified)\n"
    );
    assert!(!ws.join(".git/hooks").exists(), "no template hooks");

    // Fixed identity and dates: the same spec gives the same hashes in another sandbox.
    let head = git(&["rev-parse", "HEAD"]);
    let other = Sandbox::create(&git_spec(), &no_expand).unwrap();
    let other_vars = other.variables();
    let other_seeder = Seeder {
        expand: &no_expand,
        vars: &other_vars,
        home: other.home(),
        tmp: other.tmp(),
    };
    assert_eq!(
        other_seeder
            .git(other.workspace(), 0, ["rev-parse", "HEAD"])
            .unwrap(),
        head
    );
    assert_eq!(
        git(&["log", "-1", "--format=%an <%ae> %ad", "--date=iso-strict"]).trim(),
        "MCP Conformance <conformance@example.invalid> 2024-01-01T00:01:00Z"
    );
}

#[test]
fn git_failures_name_the_command() {
    let error = Sandbox::create(
        &spec("workspace: {git: {staged: {never-tracked.txt: null}}}"),
        &no_expand,
    )
    .unwrap_err();
    match &error {
        SandboxError::Git {
            command, stderr, ..
        } => {
            assert!(command.starts_with("git rm --cached"), "{command}");
            assert!(stderr.contains("did not match"), "{stderr}");
        }
        other => panic!("expected a git error, got {other}"),
    }
}
