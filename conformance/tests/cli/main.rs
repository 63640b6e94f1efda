//! The `mcp-conformance` command line as a user meets it: help and version, `validate` with
//! `FILE:LINE:COL: message` errors, `run` exit codes, baselines, shards, filters, `list`,
//! `schema`, and the report files. Scenarios are written into temporary folders and run
//! against the repository's fixture target.
//!
//! The tests are grouped by subject in the modules declared below; this file holds what they
//! share: running the binary and writing scenarios.

#[path = "../common/mod.rs"]
mod common;

mod builtin;
mod check;
mod closed_stdout;
mod help;
mod report_files;
mod run;
mod schema;
mod selection;
mod validate;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The legacy-only fixture: these tests are about the command line, not the generations
/// (one copy of each scenario, under its own name).
const FIXTURE_TARGET: &str = "fixtures/targets/fixture-legacy.yaml";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in the workspace")
        .to_path_buf()
}

/// What one invocation printed.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary from `cwd` with a private TMPDIR (checked for leftover sandboxes).
fn mcpc_in(cwd: &Path, args: &[&str]) -> Out {
    let tmp = tempfile::tempdir().expect("private TMPDIR");
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(cwd)
        .env("TMPDIR", tmp.path())
        .env_remove("MCP_CONFORMANCE_LOG")
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .expect("run mcp-conformance");
    let left = std::fs::read_dir(tmp.path())
        .expect("read TMPDIR")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("mcpc-"))
        .count();
    assert_eq!(left, 0, "sandbox folders left behind by {args:?}");
    Out {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs the binary from the repository root.
fn mcpc(args: &[&str]) -> Out {
    mcpc_in(&repo(), args)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create folder");
    }
    std::fs::write(&path, text).expect("write file");
    path.display().to_string()
}

/// A scenario for the fixture target that passes (a ping), with tags.
fn passing(name: &str, tags: &[&str]) -> String {
    format!(
        "name: {name}\nsuite: protocol\ntags: [{}]\nsteps:\n  - initialize: {{}}\n  - request: ping\n    \
         expect: {{ result: {{}} }}\n",
        tags.join(", ")
    )
}

/// A scenario for the fixture target that fails on its own assertion.
fn failing(name: &str) -> String {
    format!(
        "name: {name}\nsuite: protocol\ntags: [broken]\nsteps:\n  - initialize: {{}}\n  - request: ping\n    \
         expect: {{ result: {{ pong: true }} }}\n"
    )
}

fn assert_closing_line(stdout: &str) {
    let re = regex::Regex::new(r"^\d+ passed, \d+ failed, \d+ skipped$").expect("regex");
    let last = stdout.lines().last().unwrap_or("");
    assert!(re.is_match(last), "last stdout line {last:?}:\n{stdout}");
    assert!(stdout.ends_with('\n'));
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

fn names(report: &Value) -> Vec<String> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// The scenario names of `list` output (every line but the count).
fn listed(out: &Out) -> Vec<String> {
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    let (count, entries) = lines.split_last().expect("list prints a count");
    assert_eq!(*count, format!("{} scenarios", entries.len()));
    entries
        .iter()
        .map(|l| l.split("  ").next().unwrap_or("").to_owned())
        .collect()
}
