//! The exact text of every configuration error of `safe-mcp terminal` and `safe-mcp files`
//! (issue 30, item 7): each names what is wrong, where the value came from (the flag or the
//! variable, an overriding `SAFE_MCP_*` variable, or the policy file and the key's line, or
//! the default) and the value, on one line after `fatal: `; exit code 2, nothing on stdout.
//!
//! The real binary runs in a temporary directory with `--config policy.toml` (so the file
//! is shown as given), no environment but what a case sets, and the canonical temporary
//! directory shown as `<tmp>`.

#![allow(clippy::unwrap_used)]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use assert_cmd::Command;

const BIN: &str = env!("CARGO_BIN_EXE_safe-mcp");

/// A canonical temporary directory with `jail/` and `ws/` in it.
struct Tmp {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tmp {
    fn new() -> Tmp {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("jail")).unwrap();
        std::fs::create_dir(root.join("ws")).unwrap();
        std::fs::write(root.join("a-file"), "x\n").unwrap();
        Tmp { _dir: dir, root }
    }

    /// Writes `policy.toml`.
    fn policy(&self, body: &str) -> &Tmp {
        std::fs::write(self.root.join("policy.toml"), body).unwrap();
        self
    }

    /// Runs `safe-mcp ARGS` here with only `env` (and PATH) set; checks exit 2, empty stdout
    /// and exactly `fatal: LINE` on stderr.
    fn refuses(&self, args: &[&str], env: &[(&str, OsString)], line: &str) {
        let out = Command::new(BIN)
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
            .args(args)
            .write_stdin("")
            .timeout(std::time::Duration::from_secs(15))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).replace(
            self.root.to_str().expect("a UTF-8 temporary directory"),
            "<tmp>",
        );
        assert_eq!(stderr, format!("fatal: {line}\n"), "{args:?} {env:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: stdout must stay empty");
    }

    /// `safe-mcp terminal --config policy.toml` with `env` refuses with `line`.
    fn terminal(&self, env: &[(&str, OsString)], line: &str) {
        self.refuses(&["terminal", "--config", "policy.toml"], env, line);
    }

    /// `safe-mcp files --config policy.toml` with `env` refuses with `line`.
    fn files(&self, env: &[(&str, OsString)], line: &str) {
        self.refuses(&["files", "--config", "policy.toml"], env, line);
    }
}

fn var(name: &'static str, value: &str) -> (&'static str, OsString) {
    (name, value.into())
}

/// A policy body with a valid terminal jail and files workspace, then `more`.
fn with(more: &str) -> String {
    format!("[terminal]\njail_root = \"jail\"\n[files]\nworkspace_root = \"ws\"\n{more}")
}

#[test]
fn the_policy_path_names_the_flag_or_the_variable() {
    let t = Tmp::new();
    let none = "no policy file: pass --config PATH or set SAFE_MCP_POLICY_FILE";
    t.refuses(&["terminal"], &[], none);
    t.refuses(&["files"], &[var("SAFE_MCP_POLICY_FILE", "")], none);
    t.refuses(
        &["terminal", "--config", "absent.toml"],
        &[],
        "--config \"absent.toml\": cannot read the policy file: no such file or directory",
    );
    t.refuses(
        &["terminal"],
        &[var("SAFE_MCP_POLICY_FILE", "absent.toml")],
        "SAFE_MCP_POLICY_FILE=\"absent.toml\": cannot read the policy file: no such file or directory",
    );
    t.refuses(
        &["files", "--config", "jail"],
        &[],
        "--config \"jail\": cannot read the policy file: is a directory",
    );
}

#[test]
fn a_file_that_is_not_utf8_names_the_line() {
    let t = Tmp::new();
    std::fs::write(
        t.root.join("policy.toml"),
        b"[terminal]\njail_root = \"j\xffl\"\n",
    )
    .unwrap();
    t.terminal(
        &[],
        "policy.toml:2: the policy file is not valid UTF-8 (save it as UTF-8)",
    );
}

#[test]
fn toml_errors_name_the_file_line_and_column_on_one_line() {
    let t = Tmp::new();
    t.policy("not toml at all\n").terminal(
        &[],
        "policy.toml:1:5: key with no value, expected `=` (in \"not toml at all\")",
    );
    t.policy("[terminal]\njail_root = \"jail\"\nfoo =\n")
        .terminal(
            &[],
            "policy.toml:3:6: string values must be quoted, expected literal string (in \"foo =\")",
        );
    t.policy("[terminal]\njail_root = \"jail\"\nbogus = 1\n").terminal(
        &[],
        "policy.toml:3:1: unknown field `bogus`, expected one of `jail_root`, `limits`, `allowlist`, `denylist`, `rules` (in \"bogus = 1\")",
    );
    t.policy(&with("[terminal.limits]\ntimeout_seconds = \"x\"\n")).terminal(
        &[],
        "policy.toml:6:19: invalid type: string \"x\", expected f64 (in \"timeout_seconds = \\\"x\\\"\")",
    );
    t.policy(&with("[terminal.limits]\nmax_output_bytes = -1\n")).files(
        &[],
        "policy.toml:6:20: invalid value: integer `-1`, expected u64 (in \"max_output_bytes = -1\")",
    );
    t.policy(&with("[[terminal.rules]]\ndeny_args = []\n"))
        .terminal(
            &[],
            "policy.toml:5:1: missing field `command` (in \"[[terminal.rules]]\")",
        );
}

#[test]
fn a_missing_or_empty_root_names_its_key_and_variable() {
    let t = Tmp::new();
    t.policy("[terminal]\n").terminal(
        &[],
        "policy.toml: terminal.jail_root is not set (set jail_root under [terminal], or SAFE_MCP_JAIL_ROOT, to an existing directory)",
    );
    t.policy("[terminal]\njail_root = \"jail\"\n").files(
        &[],
        "policy.toml: files.workspace_root is not set (set workspace_root under [files], or SAFE_MCP_WORKSPACE_ROOT, to an existing directory)",
    );
    t.policy("[terminal]\njail_root = \"\"\n").terminal(
        &[],
        "policy.toml:2: terminal.jail_root = \"\" is empty (set it, or SAFE_MCP_JAIL_ROOT, to an existing directory)",
    );
}

/// The finding: a value from `SAFE_MCP_JAIL_ROOT` was blamed on the policy key. The variable
/// is named when it gave the value, the key and its line when the file did.
#[test]
fn a_bad_root_names_the_variable_or_the_key_that_gave_it() {
    let t = Tmp::new();
    t.policy(&with(""));
    t.terminal(
        &[var("SAFE_MCP_JAIL_ROOT", "missing")],
        "SAFE_MCP_JAIL_ROOT=\"missing\" (resolved to \"<tmp>/missing\") does not exist (create the directory or correct the path)",
    );
    t.terminal(
        &[var("SAFE_MCP_JAIL_ROOT", "a-file")],
        "SAFE_MCP_JAIL_ROOT=\"a-file\" (resolved to \"<tmp>/a-file\") is not a directory (create the directory or correct the path)",
    );
    t.files(
        &[var("SAFE_MCP_WORKSPACE_ROOT", "missing")],
        "SAFE_MCP_WORKSPACE_ROOT=\"missing\" (resolved to \"<tmp>/missing\") does not exist (create the directory or correct the path)",
    );
    t.terminal(
        &[(
            "SAFE_MCP_JAIL_ROOT",
            OsString::from_vec(b"jail\xff".to_vec()),
        )],
        "SAFE_MCP_JAIL_ROOT=\"jail\\xFF\" is not valid UTF-8 (use a path that is valid UTF-8)",
    );
    t.policy("[terminal]\njail_root = 'missing'\n").terminal(
        &[],
        "policy.toml:2: terminal.jail_root = 'missing' (resolved to \"<tmp>/missing\") does not exist (create the directory or correct the path)",
    );
    t.policy("[files]\nworkspace_root = \"a-file\"\n").files(
        &[],
        "policy.toml:2: files.workspace_root = \"a-file\" (resolved to \"<tmp>/a-file\") is not a directory (create the directory or correct the path)",
    );
}

#[test]
fn a_state_file_inside_a_root_names_both_and_where_each_was_set() {
    let t = Tmp::new();
    std::os::unix::fs::symlink(t.root.join("jail"), t.root.join("state")).unwrap();
    t.policy(&format!("audit_log = \"jail/audit.jsonl\"\n{}", with("")))
        .terminal(
            &[],
            "policy.toml:1: audit_log = \"jail/audit.jsonl\" (resolved to \"<tmp>/jail/audit.jsonl\") must be outside terminal.jail_root \"<tmp>/jail\", set at policy.toml:3 (set audit_log to a path outside it)",
        );
    t.policy(&format!("audit_log = \"state/audit.jsonl\"\n{}", with("")))
        .terminal(
            &[],
            "policy.toml:1: audit_log = \"state/audit.jsonl\" (resolved to \"<tmp>/jail/audit.jsonl\") must be outside terminal.jail_root \"<tmp>/jail\", set at policy.toml:3 (set audit_log to a path outside it)",
        );
    t.policy(&with("")).terminal(
        &[var("SAFE_MCP_AUDIT_LOG", "jail/a.jsonl")],
        "SAFE_MCP_AUDIT_LOG=\"jail/a.jsonl\" (resolved to \"<tmp>/jail/a.jsonl\") must be outside terminal.jail_root \"<tmp>/jail\", set at policy.toml:2 (set SAFE_MCP_AUDIT_LOG to a path outside it)",
    );
    t.policy("[terminal]\njail_root = \".\"\n").terminal(
        &[],
        "the default audit_log \"<tmp>/audit.jsonl\" (next to policy.toml) must be outside terminal.jail_root \"<tmp>\", set at policy.toml:2 (set audit_log or SAFE_MCP_AUDIT_LOG to a path outside it)",
    );
    t.policy(&with("journal = \"ws/journal.json\"\n")).files(
        &[],
        "policy.toml:5: files.journal = \"ws/journal.json\" (resolved to \"<tmp>/ws/journal.json\") must be outside files.workspace_root \"<tmp>/ws\", set at policy.toml:4 (set files.journal to a path outside it)",
    );
    t.policy(&with("")).files(
        &[
            var("SAFE_MCP_WORKSPACE_ROOT", "ws"),
            var("SAFE_MCP_FILES_JOURNAL", "ws/j.json"),
        ],
        "SAFE_MCP_FILES_JOURNAL=\"ws/j.json\" (resolved to \"<tmp>/ws/j.json\") must be outside files.workspace_root \"<tmp>/ws\", set by SAFE_MCP_WORKSPACE_ROOT (set SAFE_MCP_FILES_JOURNAL to a path outside it)",
    );
}

#[test]
fn audit_fail_mode_names_the_variable_or_the_key() {
    let t = Tmp::new();
    t.policy(&format!("audit_fail_mode = \"maybe\"\n{}", with("")))
        .terminal(
            &[],
            "policy.toml:1: audit_fail_mode = \"maybe\" must be \"closed\" or \"open\"",
        );
    t.policy(&with("")).files(
        &[var("SAFE_MCP_AUDIT_FAIL_MODE", "sometimes")],
        "SAFE_MCP_AUDIT_FAIL_MODE=\"sometimes\" must be \"closed\" or \"open\"",
    );
}

#[test]
fn a_bad_value_names_its_key_line_and_value_as_written() {
    let t = Tmp::new();
    let cases = [
        (
            "[redaction]\nentropy_fallback = true\n",
            "policy.toml:6: redaction.entropy_fallback = true is not supported by this implementation (remove it or set it to false)",
        ),
        (
            "[redaction]\nextra_patterns = [\n  { name = \"ok\", regex = \"x\" },\n  { name = \"broken\", regex = \"(\" },\n]\n",
            "policy.toml:8: redaction.extra_patterns[1].regex = \"(\" does not compile (pattern \"broken\"): unclosed group",
        ),
        (
            "[redaction]\nextra_patterns = [{ name = \"all\", regex = '' }]\n",
            "policy.toml:6: redaction.extra_patterns[0].regex = '' is empty and would match everywhere (pattern \"all\")",
        ),
        (
            "[terminal.allowlist]\ncommands = [\"ls\", \"bin/ls\"]\n",
            "policy.toml:6: terminal.allowlist.commands[1] = \"bin/ls\" must be a bare command name or an absolute path",
        ),
        (
            "[terminal.denylist]\ncommands = [\"rm/\"]\n",
            "policy.toml:6: terminal.denylist.commands[0] = \"rm/\" must be a bare command name or an absolute path",
        ),
        (
            "[[terminal.rules]]\ncommand = \"./git\"\n",
            "policy.toml:6: terminal.rules[0].command = \"./git\" must be a bare command name or an absolute path",
        ),
        (
            "[[terminal.rules]]\ncommand = \"git\"\ndeny_args = [\"push -f\",\n  \"  \"]\n",
            "policy.toml:8: terminal.rules[0].deny_args[1] = \"  \" is empty (in the rule for \"git\")",
        ),
        (
            "[terminal.limits]\ntimeout_seconds = 0.0\n",
            "policy.toml:6: terminal.limits.timeout_seconds = 0.0 must be in (0, 86400]",
        ),
        (
            "[terminal.limits]\nmax_output_bytes = 16777217\n",
            "policy.toml:6: terminal.limits.max_output_bytes = 16777217 must be in [1, 16777216]",
        ),
        (
            "[[files.skip]]\nwhen = [\"dotfile\"]\nreason = \"r\"\n",
            "policy.toml:5: files.skip[0].layer is missing: the rule has no layer (add layer = \"protection\" or layer = \"restraint\")",
        ),
        (
            "[[files.skip]]\nlayer = \"sometimes\"\n",
            "policy.toml:6: files.skip[0].layer = \"sometimes\" must be \"protection\" or \"restraint\"",
        ),
    ];
    for (more, line) in cases {
        t.policy(&with(more));
        t.terminal(&[], line);
        t.files(&[], line);
    }
    t.policy(&with("max_plan_moves = 0\n")).files(
        &[],
        "policy.toml:5: files.max_plan_moves = 0 must be at least 1",
    );
}

/// The organizer's own rules (`[files.categories]` names, `when` conditions), checked by
/// `files` only.
#[test]
fn a_bad_files_rule_names_its_key_and_line() {
    let t = Tmp::new();
    t.policy(&with("[files.categories]\nDocs = [\".pdf\"]\n\"a/b\" = [\".txt\"]\n"))
        .files(
            &[],
            "policy.toml:7: files.categories.\"a/b\" is not a folder name (a category is one folder under the workspace: not empty, \".\" or \"..\", no \"/\")",
        );
    t.policy(&with(
        "[[files.skip]]\nlayer = \"restraint\"\nwhen = [\"dotfile\", \"sometimes\"]\n",
    ))
    .files(
        &[],
        "policy.toml:7: files.skip[0].when[1] = \"sometimes\" is not a condition (use dotfile, installer, unsafe-name or symlink)",
    );
}

#[test]
fn a_usage_error_keeps_clap_s_tip_and_usage_line() {
    let t = Tmp::new();
    t.refuses(
        &["termnal"],
        &[],
        "unrecognized subcommand 'termnal'; tip: a similar subcommand exists: 'terminal' \
         (see --help)\nUsage: safe-mcp [COMMAND]",
    );
    t.refuses(
        &["terminal", "--config"],
        &[],
        "a value is required for '--config <PATH>' but none was supplied (see --help)",
    );
}
