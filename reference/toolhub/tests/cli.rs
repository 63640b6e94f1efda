//! Command-line behaviour of both binaries: configuration errors (exit 2, nothing on stdout,
//! at most two stderr lines, no panic text), `--version`, `--help`.

mod common;

use assert_cmd::Command;
use common::{ADMIN, SERVER, Sandbox};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(bin: &str, args: &[&str], env: &[(&str, String)]) -> Run {
    let out = Command::new(bin)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .args(args)
        .write_stdin("")
        .timeout(common::DEADLINE)
        .output()
        .expect("run");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn assert_config_error(r: &Run, what: &str) {
    assert_eq!(r.code, Some(2), "{what}: exit code (stderr: {})", r.stderr);
    assert_eq!(r.stdout, "", "{what}: stdout must stay empty");
    let lines = r.stderr.lines().count();
    assert!(
        (1..=2).contains(&lines),
        "{what}: {lines} stderr lines: {}",
        r.stderr
    );
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!r.stderr.contains(bad), "{what}: {}", r.stderr);
    }
}

#[test]
fn configuration_errors_are_one_line_exit_2_and_silent_on_stdout() {
    let sb = Sandbox::new();
    let ws = sb.workspace.display().to_string();
    let file = sb.dir.path().join("a-file");
    std::fs::write(&file, "x").expect("write");
    let inside = sb.workspace.join("state");
    std::fs::create_dir_all(&inside).expect("mkdir");
    let home = ("HOME", sb.dir.path().display().to_string());
    let cases: Vec<(&str, Vec<(&str, String)>)> = vec![
        ("workspace unset", vec![home.clone()]),
        (
            "workspace empty",
            vec![home.clone(), ("TOOLHUB_WORKSPACE_ROOT", String::new())],
        ),
        (
            "workspace relative",
            vec![home.clone(), ("TOOLHUB_WORKSPACE_ROOT", "ws".into())],
        ),
        (
            "workspace missing",
            vec![
                home.clone(),
                ("TOOLHUB_WORKSPACE_ROOT", format!("{ws}/nope")),
            ],
        ),
        (
            "workspace is a file",
            vec![
                home.clone(),
                ("TOOLHUB_WORKSPACE_ROOT", file.display().to_string()),
            ],
        ),
        (
            "state root relative",
            vec![
                home.clone(),
                ("TOOLHUB_WORKSPACE_ROOT", ws.clone()),
                ("TOOLHUB_STATE_ROOT", "state".into()),
            ],
        ),
        (
            "state root inside the workspace",
            vec![
                home.clone(),
                ("TOOLHUB_WORKSPACE_ROOT", ws.clone()),
                ("TOOLHUB_STATE_ROOT", inside.display().to_string()),
            ],
        ),
        (
            "ttl not a positive integer",
            vec![
                home.clone(),
                ("TOOLHUB_WORKSPACE_ROOT", ws.clone()),
                ("TOOLHUB_STATE_ROOT", sb.state.display().to_string()),
                ("TOOLHUB_APPROVAL_TTL_SECONDS", "0".into()),
            ],
        ),
    ];
    for (what, env) in &cases {
        assert_config_error(&run(SERVER, &["serve"], env), &format!("server, {what}"));
        assert_config_error(&run(ADMIN, &["list"], env), &format!("admin, {what}"));
    }
    let r = run(SERVER, &["serve"], &cases[0].1);
    // Every message exactly: tests/config_messages.rs.
    assert!(
        r.stderr
            .starts_with("mcp-toolhub: TOOLHUB_WORKSPACE_ROOT is required"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_state_root_bound_to_another_workspace_refuses_to_start() {
    let a = Sandbox::new();
    let b = Sandbox::new();
    let shared = a.state.display().to_string();
    let env = |sb: &Sandbox| {
        vec![
            ("HOME", sb.dir.path().display().to_string()),
            ("TOOLHUB_WORKSPACE_ROOT", sb.workspace.display().to_string()),
            ("TOOLHUB_STATE_ROOT", shared.clone()),
        ]
    };
    let first = run(ADMIN, &["list"], &env(&a));
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let r = run(SERVER, &["serve"], &env(&b));
    assert_config_error(&r, "bound to another workspace");
    assert!(r.stderr.contains("different workspace"), "{}", r.stderr);
}

#[test]
fn version_and_help() {
    let version = format!("{}\n", env!("CARGO_PKG_VERSION"));
    for bin in [SERVER, ADMIN] {
        let r = run(bin, &["--version"], &[]);
        assert_eq!(r.code, Some(0));
        assert!(r.stdout.ends_with(&version), "{}", r.stdout);
        let r = run(bin, &["--help"], &[]);
        assert_eq!(r.code, Some(0));
        assert!(r.stdout.contains("Usage:"), "{}", r.stdout);
    }
    let r = run(SERVER, &["--help"], &[]);
    assert!(r.stdout.contains("serve") && r.stdout.contains("TOOLHUB_WORKSPACE_ROOT"));
    let r = run(ADMIN, &["--help"], &[]);
    for cmd in ["list", "approve", "reject", "prune"] {
        assert!(r.stdout.contains(cmd), "{cmd}: {}", r.stdout);
    }
}

/// clap's message (with the missing names or suggestions), then clap's usage line when it
/// has one; the exact texts are in tests/config_messages.rs.
#[test]
fn usage_errors_are_at_most_two_lines() {
    for (bin, args) in [
        (SERVER, vec![]),
        (SERVER, vec!["bogus"]),
        (ADMIN, vec![]),
        (ADMIN, vec!["approve"]),
        (ADMIN, vec!["prune", "approvals"]),
    ] {
        let r = run(bin, &args, &[]);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "");
        let lines = r.stderr.lines().count();
        assert!((1..=2).contains(&lines), "{args:?}: {}", r.stderr);
    }
}
