//! End-to-end tests of the scenario engine: the real `mcp-conformance run` against the
//! fixture server, with the scenarios and targets of `tests/engine/`.
//!
//! - `engine/protocol/` runs against the repository's own `fixtures/targets/fixture-legacy.yaml`;
//! - `engine/pass/`, `engine/fail/`, `engine/skip/` run against `engine/targets/engine.yaml`
//!   (the fixture behind a wrapper that records its environment, its input and its pid);
//! - `engine/tools/` runs against `engine/targets/tools.yaml` (a seeded `--tools` file);
//! - `engine/outdir/` needs `${target.outdir}`: the tests append `vars: {outdir}` to a copy of
//!   the engine target, so they can inspect files and processes after the run;
//! - `engine/bugs/` reproduces engine bugs; their tests are `#[ignore]`d until fixed.
//!
//! A failing step is marked with a `# <- fails` comment on its first line; the tests read the
//! expected `failure.position` from that marker. Every run gets a private `TMPDIR`, and every
//! run checks that no `mcpc-*` sandbox folder is left in it.
//!
//! The tests are grouped by subject in the modules declared below; this file holds what they
//! share: running the suite and reading its scenario files.

mod bugs;
mod failures;
mod jsonrpc;
mod levels;
mod outdir;
mod pass_skip;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const ENGINE: &str = "conformance/tests/engine";
/// The legacy-only fixture: these tests are about the engine, one copy of each scenario.
const FIXTURE_TARGET: &str = "fixtures/targets/fixture-legacy.yaml";
const ENGINE_TARGET: &str = "conformance/tests/engine/targets/engine.yaml";
const TOOLS_TARGET: &str = "conformance/tests/engine/targets/tools.yaml";
const FAILS_MARKER: &str = "# <- fails";

// ---------------------------------------------------------------------------------------------
// Running the suite

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in the workspace")
        .to_path_buf()
}

/// What one `mcp-conformance run` produced.
struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
    report: Value,
    wall: Duration,
}

impl Outcome {
    fn scenarios(&self) -> &[Value] {
        self.report["scenarios"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    fn scenario(&self, name: &str) -> &Value {
        self.scenarios()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no scenario {name} in the report:\n{}", self.dump()))
    }

    fn names(&self) -> Vec<String> {
        self.scenarios()
            .iter()
            .map(|s| s["name"].as_str().unwrap_or("?").to_owned())
            .collect()
    }

    /// Names and failure messages of scenarios whose status is not `status`.
    fn not(&self, status: &str) -> Vec<String> {
        self.scenarios()
            .iter()
            .filter(|s| s["status"] != status)
            .map(|s| {
                format!(
                    "{} ({}): {} at {}",
                    s["name"].as_str().unwrap_or("?"),
                    s["status"].as_str().unwrap_or("?"),
                    s["failure"]["message"].as_str().unwrap_or("-"),
                    s["failure"]["position"]
                )
            })
            .collect()
    }

    fn dump(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `mcp-conformance run` from the repository root with a private TMPDIR and a JSON
/// report, and checks that every sandbox folder is gone afterwards.
fn run(target: &str, paths: &[&str], extra: &[&str]) -> Outcome {
    run_as(
        Command::new(env!("CARGO_BIN_EXE_mcp-conformance")),
        target,
        paths,
        extra,
    )
}

/// [`run`] through `command`, which starts `mcp-conformance` with the arguments given it.
fn run_as(mut command: Command, target: &str, paths: &[&str], extra: &[&str]) -> Outcome {
    let tmp = tempfile::tempdir().expect("private TMPDIR");
    let out = tempfile::tempdir().expect("report folder");
    let json = out.path().join("report.json");
    assert_eq!(sandboxes(tmp.path()), 0, "a fresh TMPDIR has no sandbox");
    let started = Instant::now();
    let output = command
        .current_dir(repo())
        .env("TMPDIR", tmp.path())
        .env_remove("MCP_CONFORMANCE_LOG")
        .arg("run")
        .arg("--target")
        .arg(target)
        .args(paths)
        .arg("--json")
        .arg(&json)
        .arg("--no-color")
        .args(extra)
        .output()
        .expect("run mcp-conformance");
    let wall = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stdout:\n{stdout}\nstderr:\n{stderr}"));
    let outcome = Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout,
        stderr,
        report: serde_json::from_str(&text).expect("the JSON report parses"),
        wall,
    };
    let left = sandboxes(tmp.path());
    assert_eq!(
        left,
        0,
        "{left} sandbox folder(s) left in TMPDIR\n{}",
        outcome.dump()
    );
    outcome
}

/// How many `mcpc-*` entries a folder holds.
fn sandboxes(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .expect("read TMPDIR")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("mcpc-"))
        .count()
}

/// The scenario files of a folder of `tests/engine/`, relative to the repository root.
fn yaml_files(folder: &str) -> Vec<String> {
    let dir = repo().join(ENGINE).join(folder);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .map(|n| format!("{ENGINE}/{folder}/{n}"))
        .collect();
    files.sort();
    files
}

/// The scenario name declared in a file (its `name:` line).
fn scenario_name(file: &str) -> String {
    let text = std::fs::read_to_string(repo().join(file)).expect("read scenario");
    text.lines()
        .find_map(|l| l.strip_prefix("name: "))
        .unwrap_or_else(|| panic!("{file} has no name line"))
        .trim()
        .to_owned()
}

/// The position of the step marked `# <- fails` in a scenario file: the line, and the
/// column of the step's first key (after `- `), both 1-based.
fn marked_position(file: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(repo().join(file)).expect("read scenario");
    let marked: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(FAILS_MARKER))
        .collect();
    assert_eq!(marked.len(), 1, "{file} must mark exactly one failing step");
    let (index, line) = marked[0];
    let dash = line
        .find("- ")
        .unwrap_or_else(|| panic!("{file}:{}: the marker is not on a step", index + 1));
    let after = &line[dash + 2..];
    let column = dash + 2 + (after.len() - after.trim_start().len());
    (index as u64 + 1, column as u64 + 1)
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}
