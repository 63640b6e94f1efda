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

use serde_json::Value;
use std::collections::BTreeMap;
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

/// A copy of the engine target with `vars: {outdir: DIR}`, written into DIR.
fn outdir_target(dir: &Path) -> String {
    let mut text = std::fs::read_to_string(repo().join(ENGINE_TARGET)).expect("engine target");
    assert!(
        !text.lines().any(|l| l.starts_with("vars:")),
        "the engine target must not declare vars (the tests add them)"
    );
    let outdir = serde_json::to_string(&dir.display().to_string()).expect("a JSON string");
    text.push_str(&format!("\nvars:\n  outdir: {outdir}\n"));
    let path = dir.join("target.yaml");
    std::fs::write(&path, text).expect("write target");
    path.display().to_string()
}

/// Pids listed one per line in a file.
fn pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// True while `pid` is a live (not zombie) `mcp-conformance` process. Checking the name
/// keeps a recycled pid from counting as a survivor.
fn running_ours(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let Some((head, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let comm = head.split_once('(').map(|(_, c)| c).unwrap_or("");
    let state = rest.trim_start().chars().next().unwrap_or('X');
    comm.starts_with("mcp-conformanc") && !matches!(state, 'Z' | 'X' | 'x')
}

/// Waits (bounded) until none of `pids` runs; returns the survivors. The runner has already
/// sent SIGKILL when the run ends; this only absorbs the kernel's delivery latency.
fn survivors(pids: &[i32]) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|p| running_ours(*p)).collect();
        if alive.is_empty() || Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn has_proc() -> bool {
    Path::new("/proc/self/stat").exists()
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

// ---------------------------------------------------------------------------------------------
// Scenarios that pass

#[test]
fn protocol_level_scenarios_pass_against_the_repository_fixture_target() {
    let files = yaml_files("protocol");
    let o = run(FIXTURE_TARGET, &[&format!("{ENGINE}/protocol")], &[]);
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
    let mut names = o.names();
    names.sort();
    let mut expected: Vec<String> = files.iter().map(|f| scenario_name(f)).collect();
    expected.sort();
    assert_eq!(names, expected, "every scenario file ran");
    assert_eq!(o.report["summary"]["passed"], files.len());
    assert_eq!(o.report["target"], "fixture-legacy");
}

#[test]
fn engine_scenarios_pass_against_the_engine_target() {
    let files = yaml_files("pass");
    let o = run(ENGINE_TARGET, &[&format!("{ENGINE}/pass")], &["-j", "2"]);
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
    assert_eq!(o.scenarios().len(), files.len());
    for s in o.scenarios() {
        assert!(s["failure"].is_null() && s["skip_reason"].is_null(), "{s}");
        assert_eq!(s["suite"], "engine");
        assert!(
            s["tags"]
                .as_array()
                .is_some_and(|t| t.contains(&Value::from("engine"))),
            "{s}"
        );
        let file = s["file"].as_str().unwrap_or("");
        assert!(files.iter().any(|f| f == file), "file {file} as given");
    }
}

/// Started with signals ignored (`nohup`, a CI runner's shell), the suite still starts what it
/// runs with every signal at its default: a server's `SIGHUP` behaviour is the server's, not
/// the invoking shell's.
#[test]
fn programs_start_with_default_signal_dispositions_under_an_ignoring_parent() {
    let mut ignoring = Command::new("sh");
    ignoring.args([
        "-c",
        "trap '' HUP INT QUIT TERM USR1 USR2; exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_mcp-conformance"),
    ]);
    let o = run_as(
        ignoring,
        ENGINE_TARGET,
        &[&format!("{ENGINE}/pass/signals.yaml")],
        &[],
    );
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(o.report["summary"]["passed"], 1, "{}", o.dump());
}

#[test]
fn tools_file_target_pass_skip_and_fail() {
    let o = run(TOOLS_TARGET, &[&format!("{ENGINE}/tools")], &[]);
    assert_eq!(o.code, 1, "{}", o.dump());
    assert_eq!(o.report["target"], "engine-tools");
    let ok = o.scenario("engine/tools/custom-tools");
    assert_eq!(ok["status"], "passed", "{}", o.dump());

    let skipped = o.scenario("engine/tools/requires-admin");
    assert_eq!(skipped["status"], "skipped");
    assert_eq!(
        skipped["skip_reason"],
        "target engine-tools lacks knob(s): admin"
    );
    assert!(skipped["failure"].is_null());

    // An `admin` step implies the need for an operator command: skipped, not an error.
    let admin = o.scenario("engine/tools/admin-missing");
    assert_eq!(admin["status"], "skipped");
    assert_eq!(
        admin["skip_reason"],
        "target engine-tools has no operator command (the scenario has admin steps)"
    );

    let broken = &o.scenario("engine/tools/bad-tools-file")["failure"];
    assert_eq!(broken["kind"], "assertion");
    assert!(
        broken["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("the server closed its stdout")),
        "{broken}"
    );
    assert!(
        broken["stderr_tail"]
            .as_array()
            .is_some_and(|t| t.iter().any(|l| l
                .as_str()
                .is_some_and(|l| l.contains("`tools` must be a list")))),
        "the server's stderr explains the exit: {broken}"
    );
    let (line, column) = marked_position(&format!("{ENGINE}/tools/bad-tools-file.yaml"));
    assert_eq!(broken["position"]["line"], line);
    assert_eq!(broken["position"]["column"], column);
}

#[test]
fn scenarios_needing_missing_knobs_or_suites_are_skipped_with_a_reason() {
    let o = run(ENGINE_TARGET, &[&format!("{ENGINE}/skip")], &[]);
    assert_eq!(o.code, 0, "skips do not fail a run: {}", o.dump());
    let reasons: BTreeMap<String, String> = o
        .scenarios()
        .iter()
        .map(|s| {
            assert_eq!(s["status"], "skipped", "{s}");
            assert_eq!(s["duration_ms"], 0);
            (
                s["name"].as_str().unwrap_or("?").to_owned(),
                s["skip_reason"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let expected: BTreeMap<String, String> = [
        (
            "engine/skip/requires-missing-knob",
            "target engine lacks knob(s): engine_missing_knob",
        ),
        (
            "engine/skip/server-knob-missing",
            "target engine lacks knob(s): engine_other_missing",
        ),
        (
            "engine/skip/suite-not-claimed",
            "target engine does not claim suite engine-unclaimed",
        ),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .collect();
    assert_eq!(reasons, expected);
    assert_eq!(o.report["summary"]["skipped"], 3);
    let last = o.stdout.lines().last().unwrap_or("");
    assert_eq!(last, "0 passed, 0 failed, 3 skipped");
    for name in expected.keys() {
        assert!(
            o.stdout.contains(&format!("skipped {name}: ")),
            "the human report names the skip:\n{}",
            o.stdout
        );
    }
}

#[test]
fn engine_scenarios_are_skipped_on_the_plain_fixture_target() {
    let o = run(FIXTURE_TARGET, &[&format!("{ENGINE}/pass/admin.yaml")], &[]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let s = o.scenario("engine/admin");
    assert_eq!(s["status"], "skipped");
    assert_eq!(
        s["skip_reason"],
        "target fixture-legacy does not claim suite engine"
    );
}

// ---------------------------------------------------------------------------------------------
// Failure paths

/// What each scenario of `engine/fail/` must report: kind, a message fragment, and whether
/// the failure points at a step (marked in the file) or at the whole scenario.
const FAILURES: &[(&str, &str, &str, bool)] = &[
    (
        "mismatch",
        "assertion",
        "the observation did not match at $.structured.text",
        true,
    ),
    (
        "parallel-inner",
        "assertion",
        "the observation did not match at $.result.pong",
        true,
    ),
    ("hung", "assertion", "no answer within 500ms", true),
    (
        "scenario-timeout",
        "assertion",
        "the scenario did not finish within its deadline of 1s",
        true,
    ),
    (
        "step-timeout-default",
        "assertion",
        "no answer within 400ms",
        true,
    ),
    (
        "poll-never",
        "assertion",
        "still not matched after 300ms: `until` did not match at $.structured.state",
        true,
    ),
    (
        "file-never",
        "assertion",
        "the observation did not match at $.exists",
        true,
    ),
    (
        "no-message-seen",
        "assertion",
        "a message arrived that must not have",
        true,
    ),
    (
        "no-message-within",
        "assertion",
        "a message arrived that must not have",
        true,
    ),
    (
        "expect-message-timeout",
        "assertion",
        "no message matching the pattern arrived within 200ms",
        true,
    ),
    ("not-started", "error", "server spare is not running", true),
    (
        "start-running",
        "error",
        "server main is already running",
        true,
    ),
    (
        "await-unknown",
        "error",
        "await nothing-sent: no request was sent with nowait: nothing-sent",
        true,
    ),
    (
        "unknown-variable",
        "error",
        "unknown variable ${no_such_variable}",
        true,
    ),
    (
        "exec-missing",
        "error",
        "exec: cannot find program \"engine-no-such-program-anywhere\"",
        true,
    ),
    (
        "save-missing",
        "assertion",
        "save v: the observation has nothing at `structured.no.such.path`",
        true,
    ),
    (
        "server-exits",
        "assertion",
        "the server closed its stdout",
        true,
    ),
    (
        "initialize-error",
        "assertion",
        "initialize was answered with an error",
        true,
    ),
    (
        "stop-ignored",
        "assertion",
        "the observation did not match at $.exited",
        true,
    ),
    (
        "sandbox-error",
        "error",
        "cannot prepare the sandbox: cannot expand variables in \"workspace/bad.txt\"",
        false,
    ),
];

#[test]
fn every_failure_points_at_its_step_with_kind_and_message() {
    let files = yaml_files("fail");
    let o = run(ENGINE_TARGET, &[&format!("{ENGINE}/fail")], &["-j", "4"]);
    assert_eq!(o.code, 1, "{}", o.dump());
    assert_eq!(o.report["summary"]["failed"], files.len());
    assert_eq!(o.report["summary"]["passed"], 0);
    for file in &files {
        let short = file
            .rsplit('/')
            .next()
            .and_then(|n| n.strip_suffix(".yaml"))
            .unwrap_or("");
        let &(_, kind, message, at_step) = FAILURES
            .iter()
            .find(|(n, ..)| *n == short)
            .unwrap_or_else(|| panic!("{file}: add it to FAILURES"));
        let name = format!("engine/fail/{short}");
        assert_eq!(scenario_name(file), name);
        let s = o.scenario(&name);
        assert_eq!(s["status"], "failed", "{name}");
        assert_eq!(s["file"], file.as_str());
        let f = &s["failure"];
        assert_eq!(f["kind"], kind, "{name}: {f}");
        let text = f["message"].as_str().unwrap_or("");
        assert!(text.contains(message), "{name}: {text:?} lacks {message:?}");
        assert!(f["transcript"].is_array() && f["stderr_tail"].is_array());
        if at_step {
            let (line, column) = marked_position(file);
            assert_eq!(
                f["position"],
                serde_json::json!({"line": line, "column": column}),
                "{name}: failure.position of {f}"
            );
            assert!(f["step"].is_u64(), "{name}: {f}");
            assert!(f["step_label"].is_string(), "{name}: {f}");
            assert!(
                o.stdout
                    .contains(&format!("at {file}:{line}:{column} (step ")),
                "{name}: the human report shows FILE:LINE:COL\n{}",
                o.stdout
            );
        } else {
            assert!(f["position"].is_null(), "{name}: {f}");
            assert!(f["step"].is_null() && f["step_label"].is_null(), "{name}");
        }
    }

    // Details of a plain mismatch: the step index, label, the parts that differ, the
    // exchange that led there.
    let m = &o.scenario("engine/fail/mismatch")["failure"];
    assert_eq!(m["step"], 2);
    assert_eq!(m["step_label"], "call echo");
    assert_eq!(m["expected"], "expected-text");
    assert_eq!(m["actual"], "actual-text");
    let transcript: Vec<&str> = m["transcript"]
        .as_array()
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(
        transcript
            .first()
            .is_some_and(|l| l.starts_with("-> ") && l.contains("\"method\":\"initialize\"")),
        "{transcript:#?}"
    );
    assert!(
        transcript
            .last()
            .is_some_and(|l| l.starts_with("<- ") && l.contains("actual-text")),
        "the failing exchange is the last one: {transcript:#?}"
    );
    assert!(
        !transcript.iter().any(|l| l.contains("ping")),
        "steps after the failure did not run"
    );

    // A step inside `parallel`: its own position, the index of the enclosing step.
    let p = &o.scenario("engine/fail/parallel-inner")["failure"];
    assert_eq!(p["step"], 1);
    assert_eq!(p["step_label"], "request ping");

    // Error kinds carry the scenario's variables or the server's state.
    let init = &o.scenario("engine/fail/initialize-error")["failure"];
    assert_eq!(init["actual"]["error"]["code"], -32603);
    let unknown = o.scenario("engine/fail/unknown-variable")["failure"]["message"]
        .as_str()
        .unwrap_or("");
    assert!(unknown.contains("workspace"), "known variables: {unknown}");

    // Deadlines: each failure came from its own deadline, not from the target's (10s step,
    // 30s scenario).
    let ms = |name: &str| num(&o.scenario(name)["duration_ms"]);
    assert!((500..9_000).contains(&ms("engine/fail/hung")));
    assert!((400..9_000).contains(&ms("engine/fail/step-timeout-default")));
    assert!((1_000..9_000).contains(&ms("engine/fail/scenario-timeout")));
    // (`within` stops up to one `every` (20ms) early: see bug_within_observes_at_its_deadline.)
    assert!(ms("engine/fail/poll-never") >= 280);
    assert!(ms("engine/fail/file-never") >= 280);
    assert!(ms("engine/fail/expect-message-timeout") >= 200);
    assert!(ms("engine/fail/stop-ignored") >= 300);

    let last = o.stdout.lines().last().unwrap_or("");
    assert_eq!(last, format!("0 passed, {} failed, 0 skipped", files.len()));
}

#[test]
fn a_hung_server_fails_its_scenario_alone() {
    let pass = format!("{ENGINE}/pass");
    let hung = format!("{ENGINE}/fail/hung.yaml");
    let late = format!("{ENGINE}/fail/scenario-timeout.yaml");
    let o = run(ENGINE_TARGET, &[&hung, &late, &pass], &["-j", "3"]);
    assert_eq!(o.code, 1, "{}", o.dump());
    let failed: Vec<String> = o
        .scenarios()
        .iter()
        .filter(|s| s["status"] == "failed")
        .map(|s| s["name"].as_str().unwrap_or("?").to_owned())
        .collect();
    assert_eq!(
        failed,
        ["engine/fail/hung", "engine/fail/scenario-timeout"],
        "only the hung scenarios fail:\n{:#?}",
        o.not("passed")
    );
    assert_eq!(
        o.report["summary"]["passed"],
        yaml_files("pass").len(),
        "every other scenario of the run passes"
    );
    let hung = o.scenario("engine/fail/hung");
    assert!(num(&hung["duration_ms"]) < 9_000, "{hung}");
    assert!(
        o.wall < Duration::from_secs(60),
        "the run is bounded by the deadlines, not the 10-minute call: {:?}",
        o.wall
    );
}

#[test]
fn job_count_does_not_change_results() {
    let paths = [
        format!("{ENGINE}/pass"),
        format!("{ENGINE}/fail"),
        format!("{ENGINE}/skip"),
    ];
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let digest = |o: &Outcome| -> Vec<Value> {
        o.scenarios()
            .iter()
            .map(|s| {
                serde_json::json!([
                    s["name"],
                    s["status"],
                    s["skip_reason"],
                    s["failure"]["kind"],
                    s["failure"]["step"],
                    s["failure"]["position"],
                    s["failure"]["step_label"],
                ])
            })
            .collect()
    };
    let one = run(ENGINE_TARGET, &paths, &["-j", "1"]);
    let four = run(ENGINE_TARGET, &paths, &["-j", "4"]);
    assert_eq!(one.code, 1);
    assert_eq!(four.code, 1);
    assert_eq!(one.report["summary"], four.report["summary"]);
    assert_eq!(digest(&one), digest(&four));
    // The report lists scenarios sorted by name, whatever the order they finished in.
    assert_eq!(
        one.names().first().map(String::as_str),
        Some("engine/admin")
    );
}

#[test]
fn sandboxes_are_removed_after_passing_failing_and_timed_out_scenarios() {
    let tmp = tempfile::tempdir().expect("private TMPDIR");
    let before = sandboxes(tmp.path());
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .current_dir(repo())
        .env("TMPDIR", tmp.path())
        .args(["run", "--target", ENGINE_TARGET, "--no-color", "-j", "4"])
        .arg(format!("{ENGINE}/pass/files.yaml"))
        .arg(format!("{ENGINE}/pass/git.yaml"))
        .arg(format!("{ENGINE}/fail/scenario-timeout.yaml"))
        .arg(format!("{ENGINE}/fail/sandbox-error.yaml"))
        .arg(format!("{ENGINE}/fail/stop-ignored.yaml"))
        .output()
        .expect("run mcp-conformance");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.ends_with("2 passed, 3 failed, 0 skipped\n"),
        "{stdout}"
    );
    assert_eq!(before, 0);
    assert_eq!(
        sandboxes(tmp.path()),
        0,
        "no mcpc-* folder survives the run"
    );
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read TMPDIR")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(
        leftovers.is_empty(),
        "nothing at all is left: {leftovers:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Processes and files outside the sandbox

#[test]
fn recorded_process_tree_is_killed_at_teardown() {
    if !has_proc() {
        return;
    }
    let out = tempfile::tempdir().expect("outdir");
    let target = outdir_target(out.path());
    let o = run(&target, &[&format!("{ENGINE}/outdir/processes.yaml")], &[]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let tree = pids(&out.path().join("tree.pids"));
    assert_eq!(tree.len(), 7, "the probe and its 6 descendants: {tree:?}");
    let left = survivors(&tree);
    assert!(left.is_empty(), "processes survived the run: {left:?}");
}

#[test]
fn teardown_ends_servers_with_pending_calls_and_servers_ignoring_eof() {
    if !has_proc() {
        return;
    }
    let out = tempfile::tempdir().expect("outdir");
    for sub in ["main", "liar"] {
        std::fs::create_dir(out.path().join(sub)).expect("server folder");
    }
    let target = outdir_target(out.path());
    let o = run(&target, &[&format!("{ENGINE}/outdir/teardown.yaml")], &[]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let mut servers = pids(&out.path().join("main/server.pids"));
    servers.extend(pids(&out.path().join("liar/server.pids")));
    assert_eq!(servers.len(), 2, "{servers:?}");
    assert!(
        o.wall < Duration::from_secs(30),
        "teardown does not wait for the liar's 10 minutes: {:?}",
        o.wall
    );
    let left = survivors(&servers);
    assert!(left.is_empty(), "servers survived the run: {left:?}");
}

#[test]
fn poll_repeats_its_call_until_within_ends() {
    let out = tempfile::tempdir().expect("outdir");
    let target = outdir_target(out.path());
    let file = format!("{ENGINE}/outdir/poll-attempts.yaml");
    let o = run(&target, &[&file], &[]);
    assert_eq!(o.code, 1, "{}", o.dump());
    let f = &o.scenario("engine/outdir/poll-attempts")["failure"];
    assert_eq!(f["kind"], "assertion");
    assert!(
        f["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("still not matched after 400ms")),
        "{f}"
    );
    assert_eq!(f["expected"], "done");
    assert_eq!(f["actual"], "pending");
    let (line, column) = marked_position(&file);
    assert_eq!(f["position"]["line"], line);
    assert_eq!(f["position"]["column"], column);
    let record = std::fs::read_to_string(out.path().join("rec.jsonl")).expect("record");
    let calls = record
        .lines()
        .filter(|l| l.contains("\"method\":\"tools/call\""))
        .count();
    assert!(
        calls >= 3,
        "poll called {calls} time(s) in 400ms every 20ms"
    );
}

// ---------------------------------------------------------------------------------------------
// Engine bugs: each test states the correct behaviour and is ignored until the engine does it.

#[test]
fn bug_exit_observation_has_the_whole_output() {
    let dir = tempfile::tempdir().expect("scenario folder");
    for i in 0..32 {
        let text = format!(
            "name: engine/bugs/exit-output-{i}\nsuite: engine\nservers:\n  quitter:\n    env: \
             {{ ENGINE_FIXTURE_ARGS: \"--stderr-line quitting --exit-at-start 3\" }}\nsteps:\n  \
             - wait_exit: {{}}\n    within: 10s\n    expect: {{ code: 3, stderr: \"quitting\\n\" }}\n"
        );
        std::fs::write(dir.path().join(format!("exit-{i:02}.yaml")), text).expect("write");
    }
    let folder = dir.path().display().to_string();
    let o = run(ENGINE_TARGET, &[&folder], &["-j", "32"]);
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_progress_is_per_call_inside_repeat() {
    let o = run(
        FIXTURE_TARGET,
        &[&format!("{ENGINE}/bugs/repeat-progress.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_no_message_sees_responses() {
    let file = format!("{ENGINE}/bugs/no-message-response.yaml");
    let o = run(FIXTURE_TARGET, &[&file], &[]);
    let s = o.scenario("engine/bugs/no-message-response");
    assert_eq!(s["status"], "failed", "a response with that id did arrive");
    assert_eq!(s["failure"]["step_label"], "no_response h");
}

#[test]
fn bug_await_does_not_cross_a_restart() {
    let o = run(
        FIXTURE_TARGET,
        &[&format!("{ENGINE}/bugs/await-after-restart.yaml")],
        &[],
    );
    let f = &o.scenario("engine/bugs/await-after-restart")["failure"];
    assert_eq!(f["step_label"], "await old", "{f}");
    let shown = format!("{} {}", f["message"], f["actual"]);
    assert!(
        !shown.contains("a different request"),
        "await old must not return the response of `fresh`: {shown}"
    );
}

#[test]
fn bug_within_observes_at_its_deadline() {
    let o = run(
        ENGINE_TARGET,
        &[&format!("{ENGINE}/bugs/within-last-attempt.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_default_server_is_the_first_declared() {
    let o = run(
        ENGINE_TARGET,
        &[&format!("{ENGINE}/bugs/servers-order.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

#[test]
fn bug_set_expands_in_written_order() {
    let o = run(
        FIXTURE_TARGET,
        &[&format!("{ENGINE}/bugs/set-order.yaml")],
        &[],
    );
    assert!(o.not("passed").is_empty(), "{:#?}", o.not("passed"));
}

// ---------------------------------------------------------------------------------------------
// Levels: must, should, beyond

#[test]
fn a_should_check_warns_and_strict_makes_it_fail() {
    let files = [
        format!("{ENGINE}/levels/should-step.yaml"),
        format!("{ENGINE}/levels/should-scenario.yaml"),
    ];
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    let lenient = run(ENGINE_TARGET, &paths, &[]);
    assert_eq!(
        lenient.code,
        0,
        "warnings alone pass the run\n{}",
        lenient.dump()
    );
    assert_eq!(
        lenient.report["summary"]["warnings"],
        2,
        "{}",
        lenient.dump()
    );
    assert!(
        lenient.stdout.lines().last() == Some("2 passed, 0 failed, 0 skipped, 2 warnings"),
        "{}",
        lenient.dump()
    );
    for file in &files {
        let s = lenient.scenario(&scenario_name(file));
        assert_eq!(s["status"], "passed");
        let warnings = s["warnings"].as_array().expect("a warnings list");
        assert_eq!(warnings.len(), 1, "one warning: {s}");
        assert_eq!(warnings[0]["level"], "should");
        let (line, column) = marked_position(file);
        assert_eq!(
            warnings[0]["position"],
            serde_json::json!({"line": line, "column": column})
        );
    }
    // The step-level should goes on: the step after it ran (and was judged).
    assert!(
        lenient.stdout.contains("warning engine/levels/should-step"),
        "{}",
        lenient.dump()
    );

    let strict = run(ENGINE_TARGET, &paths, &["--strict"]);
    assert_eq!(
        strict.code,
        1,
        "--strict fails on warnings\n{}",
        strict.dump()
    );
    for file in &files {
        let s = strict.scenario(&scenario_name(file));
        assert_eq!(s["status"], "failed");
        assert_eq!(s["failure"]["level"], "should");
        assert_eq!(s["warnings"], serde_json::json!([]));
    }
    assert_eq!(strict.report["summary"]["warnings"], 0);
}

#[test]
fn a_beyond_check_fails_by_default_and_no_beyond_leaves_it_out() {
    let files = [
        format!("{ENGINE}/levels/beyond-scenario.yaml"),
        format!("{ENGINE}/levels/beyond-step.yaml"),
    ];
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    let default = run(ENGINE_TARGET, &paths, &[]);
    assert_eq!(default.code, 1, "{}", default.dump());
    for file in &files {
        let s = default.scenario(&scenario_name(file));
        assert_eq!(s["status"], "failed");
        assert_eq!(s["failure"]["level"], "beyond");
    }
    assert!(
        default.stdout.contains("== Beyond the documents"),
        "{}",
        default.dump()
    );

    let without = run(ENGINE_TARGET, &paths, &["--no-beyond"]);
    assert_eq!(without.code, 0, "{}", without.dump());
    let whole = without.scenario("engine/levels/beyond-scenario");
    assert_eq!(whole["status"], "skipped");
    assert!(
        whole["skip_reason"]
            .as_str()
            .is_some_and(|r| r.contains("--no-beyond")),
        "{whole}"
    );
    // The beyond step did not run; the must steps around it did, and passed.
    assert_eq!(
        without.scenario("engine/levels/beyond-step")["status"],
        "passed"
    );
}

#[test]
fn a_level_inside_a_block_and_an_unknown_level_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let nested = dir.path().join("nested.yaml");
    std::fs::write(
        &nested,
        "name: x/nested\nsuite: x\nsteps:\n  - parallel:\n      - list_tools: {}\n        level: should\n      - list_tools: {}\n",
    )
    .expect("write");
    let unknown = dir.path().join("unknown.yaml");
    std::fs::write(
        &unknown,
        "name: x/unknown\nsuite: x\nlevel: may\nsteps:\n  - list_tools: {}\n",
    )
    .expect("write");
    let unsourced = dir.path().join("unsourced.yaml");
    std::fs::write(
        &unsourced,
        "name: toolhub/unsourced\nsuite: toolhub\nsteps:\n  - list_tools: {}\n",
    )
    .expect("write");
    let misquoted = dir.path().join("misquoted.yaml");
    std::fs::write(
        &misquoted,
        "name: toolhub/misquoted\nsuite: toolhub\nsource: { document: toolhub, quote: ToolHub never loses a file ever }\nsteps:\n  - list_tools: {}\n",
    )
    .expect("write");
    for (file, wanted) in [
        (&nested, "`level` applies to top-level steps"),
        (&unknown, "may"),
        (&unsourced, "says where its rule comes from"),
        (
            &misquoted,
            "the source quote is not in the document `toolhub`",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
            .arg("validate")
            .arg(file)
            .output()
            .expect("run validate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", file.display());
        assert!(stderr.contains(wanted), "{}: {stderr}", file.display());
        assert!(out.stdout.is_empty(), "errors go to stderr only");
    }
}
