//! The exact text of every configuration and usage error of both binaries (issue 30, item 7):
//! each names what is wrong, where it came from (the variable, the flag, or the file) and the
//! value, and says what to do, on one line (usage errors: clap's line with the missing names
//! or suggestions, then clap's usage line). Exit code 2, nothing on stdout.
//!
//! Paths are temporary directories, canonicalized and shown as `<tmp>` (`<tmp-b>` for a
//! second one); a workspace id is shown as `<id>`.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use common::{ADMIN, SERVER};

/// A canonical temporary directory with a workspace folder `ws` in it.
struct Tmp {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tmp {
    fn new() -> Tmp {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonicalize");
        std::fs::create_dir_all(root.join("ws")).expect("mkdir ws");
        Tmp { _dir: dir, root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn s(&self, rel: &str) -> OsString {
        self.path(rel).into_os_string()
    }

    fn home(&self) -> (&'static str, OsString) {
        ("HOME", self.root.clone().into_os_string())
    }
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(bin: &str, args: &[&str], env: &[(&str, OsString)]) -> Out {
    let out = Command::new(bin)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .args(args)
        .write_stdin("")
        .timeout(common::DEADLINE)
        .output()
        .expect("run");
    Out {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `text` with each `(value, placeholder)` replaced, longest value first.
fn shown(text: &str, placeholders: &[(String, &str)]) -> String {
    let mut ps: Vec<&(String, &str)> = placeholders.iter().collect();
    ps.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    let mut text = text.to_string();
    for (value, placeholder) in ps {
        text = text.replace(value.as_str(), placeholder);
    }
    text
}

fn placeholders(tmps: &[&Tmp]) -> Vec<(String, &'static str)> {
    let names = ["<tmp>", "<tmp-b>"];
    tmps.iter()
        .zip(names)
        .map(|(t, name)| (t.root.display().to_string(), name))
        .collect()
}

/// Runs `bin args` and checks exit 2, empty stdout and exactly `expected` on stderr.
fn expect_error(
    bin: &str,
    args: &[&str],
    env: &[(&str, OsString)],
    ph: &[(String, &str)],
    expected: &str,
) {
    let r = run(bin, args, env);
    let stderr = shown(&r.stderr, ph);
    assert_eq!(stderr, expected, "{bin} {args:?}: stderr");
    assert_eq!(r.code, Some(2), "{bin} {args:?}: exit code ({stderr})");
    assert_eq!(r.stdout, "", "{bin} {args:?}: stdout must stay empty");
}

/// The server (`serve`) and the admin CLI (`list`) both report `line` for `env`.
fn both(env: &[(&str, OsString)], ph: &[(String, &str)], line: &str) {
    expect_error(
        SERVER,
        &["serve"],
        env,
        ph,
        &format!("mcp-toolhub: {line}\n"),
    );
    expect_error(
        ADMIN,
        &["list"],
        env,
        ph,
        &format!("mcp-toolhub-admin: {line}\n"),
    );
}

fn workspace_id(ws: &Path) -> String {
    mcp_safety_core::jail::Workspace::open(ws.to_str().expect("utf-8"))
        .expect("workspace")
        .id()
        .to_string()
}

// --- TOOLHUB_WORKSPACE_ROOT ---------------------------------------------------------------

#[test]
fn workspace_unset() {
    let t = Tmp::new();
    both(
        &[t.home()],
        &placeholders(&[&t]),
        "TOOLHUB_WORKSPACE_ROOT is required but not set (set it to the absolute path of an existing workspace directory)",
    );
}

#[test]
fn workspace_empty_and_blank() {
    let t = Tmp::new();
    for value in ["", "  "] {
        both(
            &[t.home(), ("TOOLHUB_WORKSPACE_ROOT", value.into())],
            &placeholders(&[&t]),
            &format!(
                "TOOLHUB_WORKSPACE_ROOT is required but set to \"{value}\" (set it to the absolute path of an existing workspace directory)"
            ),
        );
    }
}

#[test]
fn workspace_relative() {
    let t = Tmp::new();
    both(
        &[t.home(), ("TOOLHUB_WORKSPACE_ROOT", "rel/dir".into())],
        &placeholders(&[&t]),
        "TOOLHUB_WORKSPACE_ROOT=\"rel/dir\" must be an absolute path (set it to the workspace directory's absolute path)",
    );
}

#[test]
fn workspace_missing() {
    let t = Tmp::new();
    both(
        &[t.home(), ("TOOLHUB_WORKSPACE_ROOT", t.s("ws/nope"))],
        &placeholders(&[&t]),
        "TOOLHUB_WORKSPACE_ROOT=\"<tmp>/ws/nope\" does not exist (create the directory or correct the path)",
    );
    assert!(!t.path("ws/nope").exists(), "not created");
}

#[test]
fn workspace_is_a_file() {
    let t = Tmp::new();
    std::fs::write(t.path("a-file"), "x").expect("write");
    both(
        &[t.home(), ("TOOLHUB_WORKSPACE_ROOT", t.s("a-file"))],
        &placeholders(&[&t]),
        "TOOLHUB_WORKSPACE_ROOT=\"<tmp>/a-file\" is not a directory (create the directory or correct the path)",
    );
}

#[test]
fn workspace_cannot_be_opened() {
    let t = Tmp::new();
    let long = "a".repeat(300);
    both(
        &[t.home(), ("TOOLHUB_WORKSPACE_ROOT", t.s(&long))],
        &placeholders(&[&t]),
        &format!(
            "TOOLHUB_WORKSPACE_ROOT=\"<tmp>/{long}\" cannot be opened: file name too long (check the path and its permissions)"
        ),
    );
}

#[test]
fn workspace_not_utf8() {
    use std::os::unix::ffi::OsStringExt;
    let t = Tmp::new();
    let mut raw = t.s("").into_vec();
    raw.extend_from_slice(b"ws\xff");
    both(
        &[
            t.home(),
            ("TOOLHUB_WORKSPACE_ROOT", OsString::from_vec(raw)),
        ],
        &placeholders(&[&t]),
        "TOOLHUB_WORKSPACE_ROOT=\"<tmp>/ws\\xFF\" is not valid UTF-8 (use a path that is valid UTF-8)",
    );
}

#[test]
fn workspace_resolving_to_a_path_that_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let t = Tmp::new();
    let odd = t.root.join(std::ffi::OsStr::from_bytes(b"odd\xff"));
    std::fs::create_dir_all(&odd).expect("mkdir");
    std::os::unix::fs::symlink(&odd, t.path("link")).expect("symlink");
    both(
        &[t.home(), ("TOOLHUB_WORKSPACE_ROOT", t.s("link"))],
        &placeholders(&[&t]),
        "TOOLHUB_WORKSPACE_ROOT=\"<tmp>/link\" resolves to a path that is not valid UTF-8 (use a workspace directory whose absolute path is valid UTF-8)",
    );
}

// --- TOOLHUB_STATE_ROOT and the per-user default ------------------------------------------

#[test]
fn state_root_relative_and_empty() {
    let t = Tmp::new();
    for value in ["state", ""] {
        both(
            &[
                t.home(),
                ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
                ("TOOLHUB_STATE_ROOT", value.into()),
            ],
            &placeholders(&[&t]),
            &format!(
                "TOOLHUB_STATE_ROOT=\"{value}\" must be an absolute path (set it to the absolute path of a trusted directory outside the workspace, or unset it to use the per-user default)"
            ),
        );
    }
}

#[test]
fn state_root_not_utf8() {
    use std::os::unix::ffi::OsStringExt;
    let t = Tmp::new();
    let mut raw = t.s("").into_vec();
    raw.extend_from_slice(b"state\xff");
    both(
        &[
            t.home(),
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
            ("TOOLHUB_STATE_ROOT", OsString::from_vec(raw)),
        ],
        &placeholders(&[&t]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/state\\xFF\" is not valid UTF-8 (use a path that is valid UTF-8)",
    );
}

#[test]
fn state_root_inside_the_workspace() {
    let t = Tmp::new();
    std::fs::create_dir_all(t.path("ws/state")).expect("mkdir");
    both(
        &[
            t.home(),
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
            ("TOOLHUB_STATE_ROOT", t.s("ws/state")),
        ],
        &placeholders(&[&t]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/ws/state\" must be outside the workspace \"<tmp>/ws\" (move TOOLHUB_STATE_ROOT to a trusted directory the MCP filesystem tools cannot address)",
    );
}

#[test]
fn state_root_reaching_into_the_workspace_names_where_it_leads() {
    let t = Tmp::new();
    std::fs::create_dir_all(t.path("ws/sub")).expect("mkdir");
    std::os::unix::fs::symlink(t.path("ws/sub"), t.path("link")).expect("symlink");
    both(
        &[
            t.home(),
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
            ("TOOLHUB_STATE_ROOT", t.s("link/state")),
        ],
        &placeholders(&[&t]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/link/state\" (resolved to \"<tmp>/ws/sub/state\") must be outside the workspace \"<tmp>/ws\" (move TOOLHUB_STATE_ROOT to a trusted directory the MCP filesystem tools cannot address)",
    );
    assert!(!t.path("ws/sub/state").exists(), "nothing created inside");
}

#[test]
fn default_state_root_inside_the_workspace() {
    // HOME is the workspace: the per-user default would be inside it.
    let t = Tmp::new();
    let ws = t.path("ws");
    let mut ph = placeholders(&[&t]);
    ph.push((workspace_id(&ws), "<id>"));
    both(
        &[
            ("HOME", ws.clone().into_os_string()),
            ("TOOLHUB_WORKSPACE_ROOT", ws.into_os_string()),
        ],
        &ph,
        "the default state root \"<tmp>/ws/.local/state/mcp-toolhub/workspaces/<id>\" (from HOME=\"<tmp>/ws\") must be outside the workspace \"<tmp>/ws\" (set TOOLHUB_STATE_ROOT to a trusted directory the MCP filesystem tools cannot address)",
    );
    let xdg = t.path("ws/xdg");
    both(
        &[
            t.home(),
            ("XDG_STATE_HOME", xdg.into_os_string()),
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
        ],
        &ph,
        "the default state root \"<tmp>/ws/xdg/mcp-toolhub/workspaces/<id>\" (from XDG_STATE_HOME=\"<tmp>/ws/xdg\") must be outside the workspace \"<tmp>/ws\" (set TOOLHUB_STATE_ROOT to a trusted directory the MCP filesystem tools cannot address)",
    );
    assert!(!t.path("ws/.local").exists() && !t.path("ws/xdg").exists());
}

#[test]
fn no_per_user_state_directory() {
    let t = Tmp::new();
    let ph = placeholders(&[&t]);
    both(
        &[("TOOLHUB_WORKSPACE_ROOT", t.s("ws"))],
        &ph,
        "TOOLHUB_STATE_ROOT is not set and there is no per-user state directory: XDG_STATE_HOME is not set, HOME is not set (set TOOLHUB_STATE_ROOT to the absolute path of a trusted directory outside the workspace, or set HOME)",
    );
    both(
        &[
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
            ("XDG_STATE_HOME", "rel-state".into()),
            ("HOME", "".into()),
        ],
        &ph,
        "TOOLHUB_STATE_ROOT is not set and there is no per-user state directory: XDG_STATE_HOME=\"rel-state\" is not absolute, HOME=\"\" is not absolute (set TOOLHUB_STATE_ROOT to the absolute path of a trusted directory outside the workspace, or set HOME)",
    );
}

#[test]
fn state_root_is_a_file() {
    let t = Tmp::new();
    std::fs::write(t.path("state"), "x").expect("write");
    both(
        &[
            t.home(),
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
            ("TOOLHUB_STATE_ROOT", t.s("state")),
        ],
        &placeholders(&[&t]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/state\" is not a directory (set it to a directory, or to a path where one can be created)",
    );
}

#[test]
fn state_root_cannot_be_created() {
    let t = Tmp::new();
    std::fs::write(t.path("file"), "x").expect("write");
    both(
        &[
            t.home(),
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
            ("TOOLHUB_STATE_ROOT", t.s("file/state")),
        ],
        &placeholders(&[&t]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/file/state\": cannot create the directory \"<tmp>/file/state\": not a directory (check the path and its permissions, or set TOOLHUB_STATE_ROOT to another directory)",
    );
}

#[test]
fn state_root_bound_to_another_workspace() {
    let a = Tmp::new();
    let b = Tmp::new();
    let env = |t: &Tmp| {
        vec![
            t.home(),
            ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
            ("TOOLHUB_STATE_ROOT", a.s("state")),
        ]
    };
    let first = run(ADMIN, &["list"], &env(&a));
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let binding = std::fs::read(a.path("state/workspace-binding.json")).expect("binding");
    both(
        &env(&b),
        &placeholders(&[&a, &b]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/state\" belongs to a different workspace: its workspace-binding.json binds it to \"<tmp>/ws\", not to \"<tmp-b>/ws\" (select a different explicit TOOLHUB_STATE_ROOT, or set TOOLHUB_WORKSPACE_ROOT to \"<tmp>/ws\"; bindings are never silently reassigned)",
    );
    assert_eq!(
        std::fs::read(a.path("state/workspace-binding.json")).expect("binding"),
        binding,
        "never reassigned"
    );
}

#[test]
fn binding_with_another_workspace_id() {
    let t = Tmp::new();
    let env = vec![
        t.home(),
        ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
        ("TOOLHUB_STATE_ROOT", t.s("state")),
    ];
    let first = run(ADMIN, &["list"], &env);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let file = t.path("state/workspace-binding.json");
    let mut b: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("json");
    b["workspace_id"] = serde_json::json!("00ff");
    std::fs::write(&file, b.to_string()).expect("write");
    let mut ph = placeholders(&[&t]);
    ph.push((workspace_id(&t.path("ws")), "<id>"));
    both(
        &env,
        &ph,
        "TOOLHUB_STATE_ROOT=\"<tmp>/state\" belongs to a different workspace: its workspace-binding.json binds it to \"<tmp>/ws\" with workspace_id \"00ff\", not <id> (select a different explicit TOOLHUB_STATE_ROOT; bindings are never silently reassigned)",
    );
}

#[test]
fn binding_file_malformed() {
    let t = Tmp::new();
    std::fs::create_dir_all(t.path("state")).expect("mkdir");
    std::fs::write(t.path("state/workspace-binding.json"), "{\n  not json\n").expect("write");
    let env = vec![
        t.home(),
        ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
        ("TOOLHUB_STATE_ROOT", t.s("state")),
    ];
    both(
        &env,
        &placeholders(&[&t]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/state\": \"<tmp>/state/workspace-binding.json\" is malformed: key must be a string at line 2 column 3 (restore the file, or select a different explicit TOOLHUB_STATE_ROOT; a binding is never replaced)",
    );
    let ws = t.path("ws");
    let unsupported = serde_json::json!({
        "version": 2,
        "workspace": ws.to_str().expect("utf-8"),
        "workspace_id": workspace_id(&ws),
    });
    std::fs::write(
        t.path("state/workspace-binding.json"),
        unsupported.to_string(),
    )
    .expect("write");
    both(
        &env,
        &placeholders(&[&t]),
        "TOOLHUB_STATE_ROOT=\"<tmp>/state\": \"<tmp>/state/workspace-binding.json\" is malformed: version 2 is not supported (expected 1) (restore the file, or select a different explicit TOOLHUB_STATE_ROOT; a binding is never replaced)",
    );
}

// --- TOOLHUB_APPROVAL_TTL_SECONDS ---------------------------------------------------------

#[test]
fn approval_ttl_invalid() {
    let t = Tmp::new();
    for value in ["0", "abc", "604801"] {
        both(
            &[
                t.home(),
                ("TOOLHUB_WORKSPACE_ROOT", t.s("ws")),
                ("TOOLHUB_STATE_ROOT", t.s("state")),
                ("TOOLHUB_APPROVAL_TTL_SECONDS", value.into()),
            ],
            &placeholders(&[&t]),
            &format!(
                "TOOLHUB_APPROVAL_TTL_SECONDS=\"{value}\" must be a whole number of seconds from 1 to 604800 (set it in that range, or unset it for the default of 900)"
            ),
        );
    }
}

// --- usage errors (clap) --------------------------------------------------------------------

fn usage(bin: &str, args: &[&str], expected: &str) {
    expect_error(bin, args, &[], &[], expected);
}

#[test]
fn admin_approve_without_its_id_names_the_argument() {
    usage(
        ADMIN,
        &["approve"],
        "mcp-toolhub-admin: the following required arguments were not provided: <REQUEST_ID> (see --help)\nUsage: mcp-toolhub-admin approve <REQUEST_ID>\n",
    );
    usage(
        ADMIN,
        &["reject"],
        "mcp-toolhub-admin: the following required arguments were not provided: <REQUEST_ID> (see --help)\nUsage: mcp-toolhub-admin reject <REQUEST_ID>\n",
    );
}

#[test]
fn admin_prune_without_its_flag_names_the_flag() {
    usage(
        ADMIN,
        &["prune", "approvals"],
        "mcp-toolhub-admin: the following required arguments were not provided: --older-than-days <N> (see --help)\nUsage: mcp-toolhub-admin prune approvals --older-than-days <N>\n",
    );
}

#[test]
fn admin_bad_flag_value_names_the_flag_and_value() {
    usage(
        ADMIN,
        &["prune", "audit", "--keep-last", "many"],
        "mcp-toolhub-admin: invalid value 'many' for '--keep-last <N>': invalid digit found in string (see --help)\n",
    );
}

#[test]
fn admin_misspelled_command_keeps_the_suggestion() {
    usage(
        ADMIN,
        &["aprove", "req_1"],
        "mcp-toolhub-admin: unrecognized subcommand 'aprove'; tip: some similar subcommands exist: 'prune', 'approve' (see --help)\nUsage: mcp-toolhub-admin <COMMAND>\n",
    );
}

#[test]
fn admin_without_a_command_lists_the_commands() {
    usage(
        ADMIN,
        &[],
        "mcp-toolhub-admin: a command is required: list, approve, reject, export, prune (see --help)\nUsage: mcp-toolhub-admin <COMMAND>\n",
    );
    usage(
        ADMIN,
        &["prune"],
        "mcp-toolhub-admin: a command is required: approvals, audit, damaged (see --help)\nUsage: mcp-toolhub-admin prune <COMMAND>\n",
    );
}

#[test]
fn server_usage_errors() {
    usage(
        SERVER,
        &[],
        "mcp-toolhub: a command is required: serve (see --help)\n",
    );
    usage(
        SERVER,
        &["serv"],
        "mcp-toolhub: unrecognized subcommand 'serv'; tip: a similar subcommand exists: 'serve' (see --help)\nUsage: mcp-toolhub [COMMAND]\n",
    );
}
