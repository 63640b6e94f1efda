//! Loader tests and the evaluation-order property test.

use super::raw::{RawCommandList, RawRule, RawTerminal};
use super::*;
use proptest::prelude::*;

fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("jail")).unwrap();
    let file = tmp.path().join("policy.toml");
    (tmp, file)
}

fn load(text: &str, file: &Path, o: &Overrides) -> Result<Policy, PolicyError> {
    Policy::from_toml(text, file, o, Server::Terminal)
}

#[test]
fn relative_keys_resolve_next_to_the_file_and_env_wins() {
    let (tmp, file) = setup();
    let p = load(
        "[terminal]\njail_root = \"jail\"\n[terminal.allowlist]\ncommands=[\"ls\"]\n",
        &file,
        &Overrides::default(),
    )
    .unwrap();
    let base = tmp.path().canonicalize().unwrap();
    assert_eq!(p.jail_root.unwrap(), base.join("jail"));
    assert_eq!(p.audit_log, tmp.path().join(DEFAULT_AUDIT_LOG));
    assert_eq!(p.audit_fail_mode, FailMode::Closed);
    std::fs::create_dir(tmp.path().join("other")).unwrap();
    let o = Overrides {
        jail_root: Some(tmp.path().join("other").display().to_string()),
        audit_fail_mode: Some("open".into()),
        ..Default::default()
    };
    let p = load("[terminal]\njail_root = \"jail\"\n", &file, &o).unwrap();
    assert_eq!(p.jail_root.unwrap(), base.join("other"));
    assert_eq!(p.audit_fail_mode, FailMode::Open);
}

/// A relative override names a path from where the server was started (the process's
/// working directory), not from the policy file.
#[test]
fn a_relative_override_resolves_from_the_working_directory() {
    let (_tmp, file) = setup();
    let o = Overrides {
        audit_log: Some("logs/audit.jsonl".into()),
        ..Default::default()
    };
    let p = load("[terminal]\njail_root = \"jail\"\n", &file, &o).unwrap();
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(p.audit_log, cwd.join("logs/audit.jsonl"));
}

#[test]
fn an_empty_key_is_unset_and_the_journal_is_checked_only_for_files() {
    let (tmp, file) = setup();
    let none = Overrides::default();
    let p = load(
        "audit_log = \"\"\n[terminal]\njail_root = \"jail\"\n",
        &file,
        &none,
    )
    .unwrap();
    assert_eq!(
        p.audit_log,
        tmp.path().join(DEFAULT_AUDIT_LOG),
        "empty = default"
    );
    // The journal belongs to `safe-mcp files`: inside the workspace it is refused there, and
    // the terminal, which never writes it, does not care where it points.
    let text = "[terminal]\njail_root = \"jail\"\n[files]\nworkspace_root = \"jail\"\njournal = \"jail/journal.jsonl\"\n";
    let files = Policy::from_toml(text, &file, &none, Server::Files).unwrap_err();
    assert!(files.to_string().contains("journal"), "{files}");
    assert!(Policy::from_toml(text, &file, &none, Server::Terminal).is_ok());
}

#[test]
fn startup_failures() {
    let (tmp, file) = setup();
    let none = Overrides::default();
    let cases: &[(&str, &str)] = &[
        ("", "jail_root is required"),
        (
            "[terminal]\njail_root = \"missing\"\n",
            "not an existing directory",
        ),
        (
            "[terminal]\njail_root = \"policy.toml\"\n",
            "not an existing directory",
        ),
        ("this is not toml", "invalid policy file"),
        (
            "[terminal]\njail_root = \"jail\"\nbogus = 1\n",
            "invalid policy file",
        ),
        (
            "[terminal]\njail_root = \"jail\"\n[redaction]\nextra_patterns=[{name=\"x\", regex=\"(\"}]\n",
            "redaction.extra_patterns[0].regex = \"(\" does not compile (pattern \"x\")",
        ),
        (
            "audit_log = \"jail/audit.jsonl\"\n[terminal]\njail_root = \"jail\"\n",
            "must be outside jail_root",
        ),
        (
            "audit_fail_mode = \"maybe\"\n[terminal]\njail_root = \"jail\"\n",
            "audit_fail_mode",
        ),
        (
            "[terminal]\njail_root = \"jail\"\n[[files.skip]]\nwhen=[\"x\"]\nreason=\"r\"\n",
            "has no layer",
        ),
        (
            "[terminal]\njail_root = \"jail\"\n[terminal.allowlist]\ncommands=[\"bin/ls\"]\n",
            "bare command name or an absolute path",
        ),
        (
            "[terminal]\njail_root = \"jail\"\n[terminal.limits]\ntimeout_seconds = 0\n",
            "timeout_seconds",
        ),
    ];
    std::fs::write(&file, "").unwrap();
    for (text, want) in cases {
        let e = load(text, &file, &none).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    drop(tmp);
}

#[test]
fn limits_hold_at_their_exact_edges() {
    // The bounds as numbers (one day, 16 MiB), not the constants, which move with a change.
    let (tmp, file) = setup();
    let none = Overrides::default();
    let with = |limits: &str| {
        load(
            &format!("[terminal]\njail_root = \"jail\"\n[terminal.limits]\n{limits}\n"),
            &file,
            &none,
        )
    };
    for ok in [
        "max_output_bytes = 1",
        "max_output_bytes = 16777216",
        "timeout_seconds = 86400",
        "timeout_seconds = 0.001",
    ] {
        assert!(with(ok).is_ok(), "{ok}");
    }
    for (refused, key) in [
        ("max_output_bytes = 0", "max_output_bytes"),
        ("max_output_bytes = 16777217", "max_output_bytes"),
        ("timeout_seconds = 86400.5", "timeout_seconds"),
        ("timeout_seconds = -1", "timeout_seconds"),
    ] {
        let e = with(refused).expect_err(refused).to_string();
        assert!(e.contains(key), "{refused}: {e}");
    }
    let policy = with("max_output_bytes = 16777216\ntimeout_seconds = 2.5").expect("valid");
    assert_eq!(policy.terminal.max_output_bytes, 16_777_216);
    assert_eq!(
        policy.terminal.timeout,
        std::time::Duration::from_millis(2500)
    );
    drop(tmp);
}

#[test]
fn audit_log_through_a_symlink_into_the_jail_is_refused() {
    let (tmp, file) = setup();
    std::os::unix::fs::symlink(tmp.path().join("jail"), tmp.path().join("state")).unwrap();
    let e = load(
        "audit_log = \"state/a.jsonl\"\n[terminal]\njail_root = \"jail\"\n",
        &file,
        &Overrides::default(),
    )
    .unwrap_err();
    assert!(matches!(e, PolicyError::StateInsideJail { .. }), "{e}");
}

fn argv(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

fn policy(allow: &[&str], deny: &[&str], rules: Vec<RawRule>) -> TerminalPolicy {
    TerminalPolicy::try_from(&RawTerminal {
        allowlist: RawCommandList {
            commands: allow.iter().map(|s| s.to_string()).collect(),
        },
        denylist: RawCommandList {
            commands: deny.iter().map(|s| s.to_string()).collect(),
        },
        rules,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn evaluation_examples() {
    let p = policy(
        &["ls", "cat", "git"],
        &["rm"],
        vec![RawRule {
            command: "git".into(),
            deny_args: vec!["push --force".into(), "push -f".into()],
            reason: Some("force-push rewrites shared history".into()),
        }],
    );
    let v = p.evaluate(&argv(&["cat", "notes.txt"]));
    assert_eq!((v.allowed, v.reason.as_str()), (true, "'cat' is allowed"));
    let v = p.evaluate(&argv(&["rm", "-rf", "/"]));
    assert_eq!(v.reason, "'rm' is on the denylist");
    assert!(!p.evaluate(&argv(&["python3"])).allowed);
    let v = p.evaluate(&argv(&["git", "push", "--force", "origin"]));
    assert_eq!(
        (v.allowed, v.reason.as_str()),
        (false, "force-push rewrites shared history")
    );
    assert!(p.evaluate(&argv(&["git", "push", "origin"])).allowed);
    // Paths: allowed only by the exact path; denied by the file name.
    assert!(!p.evaluate(&argv(&["/bin/ls"])).allowed);
    assert!(!p.evaluate(&argv(&["./ls"])).allowed);
    assert_eq!(
        p.evaluate(&argv(&["/bin/rm", "x"])).reason,
        "'rm' is on the denylist"
    );
    let v = p.evaluate(&argv(&["/usr/bin/git", "push", "-f"]));
    assert!(!v.allowed);
    let p = policy(&["/opt/tool/bin/probe", "rm"], &["/bin/rm"], vec![]);
    assert!(p.evaluate(&argv(&["/opt/tool/bin/probe", "x"])).allowed);
    assert!(!p.evaluate(&argv(&["probe"])).allowed);
    assert!(!p.evaluate(&argv(&["/elsewhere/probe"])).allowed);
    assert!(!p.evaluate(&argv(&["rm"])).allowed);
}

proptest! {
    /// Whatever the order of entries and rules, a command named on the denylist, or whose
    /// arguments match a `deny_args` rule, is denied even when it is also allowlisted; one
    /// on no list is denied; only an allowlisted, unmatched command is allowed.
    #[test]
    fn deny_beats_allow_in_any_order(
        mut allow in prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d"]), 0..6),
        mut deny in prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d"]), 0..4),
        rule_cmds in prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d"]), 0..4),
        args in prop::collection::vec(prop::sample::select(vec!["x", "y", "z"]), 0..4),
        cmd in prop::sample::select(vec!["a", "b", "c", "d", "e"]),
        seed in any::<u64>(),
    ) {
        let mut rules: Vec<RawRule> = rule_cmds.iter().map(|c| RawRule {
            command: c.to_string(),
            deny_args: vec!["x y".into()],
            reason: Some(format!("rule for {c}")),
        }).collect();
        let rot = (seed % 7) as usize;
        let (na, nd, nr) = (allow.len().max(1), deny.len().max(1), rules.len().max(1));
        allow.rotate_left(rot % na);
        deny.rotate_left(rot % nd);
        rules.rotate_left(rot % nr);
        if seed % 2 == 0 { allow.reverse(); deny.reverse(); rules.reverse(); }
        let p = policy(&allow, &deny, rules);
        let mut full = vec![cmd.to_string()];
        full.extend(args.iter().map(|s| s.to_string()));
        let v = p.evaluate(&full);
        let rule_hit = rule_cmds.contains(&cmd) && args.windows(2).any(|w| w == ["x", "y"]);
        let expect = allow.contains(&cmd) && !deny.contains(&cmd) && !rule_hit;
        prop_assert_eq!(v.allowed, expect, "{:?}", v);
    }
}

#[test]
fn a_startup_failure_names_where_the_bad_value_came_from() {
    let (tmp, file) = setup();
    let shown = file.display().to_string();
    let err = load(
        "[terminal]\njail_root = \"jail\"\nbogus = 1\n",
        &file,
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with(&format!("invalid policy file: {shown} line 3, column 1: ")),
        "{err}"
    );
    assert!(
        !err.contains('\n') && !err.contains('|'),
        "one line, no caret art: {err}"
    );
    let err = load(
        "[terminal]\njail_root = \"missing\"\n",
        &file,
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with(&format!("jail_root in {shown} = \"")),
        "{err}"
    );
    let from_env = Overrides {
        jail_root: Some(tmp.path().join("nope").display().to_string()),
        ..Overrides::default()
    };
    let err = load("[terminal]\njail_root = \"jail\"\n", &file, &from_env)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("SAFE_MCP_JAIL_ROOT = \""), "{err}");
    assert!(
        err.ends_with("is not an existing directory (create it or correct the path)"),
        "{err}"
    );
}
