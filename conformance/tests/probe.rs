//! Black-box tests of `mcp-conformance probe`: the real binary, real pipes, real processes.

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, getpgid, getsid};
use serde_json::Value;

const MIB: usize = 1024 * 1024;

fn probe(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"));
    command.arg("probe").args(args).stdin(Stdio::null());
    command
}

fn run(args: &[&str]) -> Output {
    probe(args).output().expect("run probe")
}

#[test]
fn both_streams_get_exact_byte_counts() {
    let n = (3 * MIB).to_string();
    let output = run(&[
        "--stdout-bytes",
        &n,
        "--stderr-bytes",
        &n,
        "--fill",
        "abc",
        "--line-length",
        "100",
    ]);
    assert!(output.status.success());
    for stream in [&output.stdout, &output.stderr] {
        assert_eq!(stream.len(), 3 * MIB);
        let mut fill = b"abc".iter().cycle();
        for (i, byte) in stream.iter().enumerate() {
            let expected = if i % 101 == 100 {
                b'\n'
            } else {
                *fill.next().unwrap_or(&0)
            };
            assert_eq!(*byte, expected, "byte {i}");
        }
    }
}

#[test]
fn literal_text_comes_before_generated_bytes() {
    let output = run(&[
        "--stdout",
        "head:",
        "--stdout-bytes",
        "3",
        "--stderr",
        "-e-",
    ]);
    assert_eq!(output.stdout, b"head:xxx");
    assert_eq!(output.stderr, b"-e-");
}

#[test]
fn print_env_is_one_sorted_json_object() {
    let output = probe(&["--print-env"])
        .env("PROBE_TEST_VALUE", "snow ☃")
        .output()
        .expect("run probe");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), 1);
    assert!(text.ends_with('\n'));
    let env: Value = serde_json::from_str(&text).expect("JSON");
    let object = env.as_object().expect("object");
    assert_eq!(object["PROBE_TEST_VALUE"], "snow ☃");
    let keys: Vec<&String> = object.keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn print_args_and_cwd() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = probe(&["--print-args", "--print-cwd"])
        .current_dir(dir.path())
        .output()
        .expect("run probe");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    let argv: Vec<String> = serde_json::from_str(lines[0]).expect("argv JSON");
    assert_eq!(argv[1..], ["probe", "--print-args", "--print-cwd"]);
    let cwd = std::fs::canonicalize(dir.path()).expect("canonical");
    assert_eq!(Path::new(lines[1]), cwd);
}

#[test]
fn exit_code_is_the_one_asked_for() {
    assert_eq!(run(&["--exit", "7"]).status.code(), Some(7));
    assert_eq!(run(&[]).status.code(), Some(0));
    assert_eq!(
        run(&["--stdout-bytes", "1", "--fill", ""]).status.code(),
        Some(2)
    );
}

#[test]
fn record_appends_one_json_line_per_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("runs.jsonl");
    let record_arg = record.to_str().expect("utf-8 path");
    for _ in 0..2 {
        let output = probe(&["--record", record_arg, "--stdout", "x"])
            .current_dir(dir.path())
            .output()
            .expect("run probe");
        assert!(output.status.success());
    }
    let text = std::fs::read_to_string(&record).expect("record");
    let runs: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON line"))
        .collect();
    assert_eq!(runs.len(), 2);
    for run in &runs {
        assert!(run["pid"].as_u64().is_some_and(|pid| pid > 0));
        assert_eq!(run["argv"][1], "probe");
        assert_eq!(run["argv"][2], "--record");
        let cwd = std::fs::canonicalize(dir.path()).expect("canonical");
        assert_eq!(run["cwd"].as_str().map(Path::new), Some(cwd.as_path()));
    }
}

/// Pids read from a pidfile; every one is SIGKILLed on drop so a failing test leaves
/// nothing running.
struct Tree {
    pids: Vec<Pid>,
}

impl Tree {
    fn read(pidfile: &Path) -> Self {
        let text = std::fs::read_to_string(pidfile).unwrap_or_default();
        let pids = text
            .lines()
            .filter_map(|line| line.trim().parse::<i32>().ok())
            .map(Pid::from_raw)
            .collect();
        Self { pids }
    }

    fn kill_all(&self) {
        for pid in &self.pids {
            let _ = kill(*pid, Signal::SIGKILL);
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// A process is gone once it no longer exists or is a zombie waiting to be reaped.
fn is_gone(pid: Pid) -> bool {
    if kill(pid, None) == Err(Errno::ESRCH) {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after_name = stat.rsplit_once(')')?.1;
            after_name
                .split_whitespace()
                .next()
                .map(|state| state == "Z" || state == "X")
        })
        .unwrap_or(false)
}

/// `true` when /proc says SIGTERM (signal 15) is ignored by `pid`; `None` without /proc.
fn ignores_sigterm(pid: Pid) -> Option<bool> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))?
        .trim();
    let mask = u64::from_str_radix(mask, 16).ok()?;
    Some(mask & (1 << (15 - 1)) != 0)
}

#[test]
fn descendant_tree_is_recorded_before_the_probe_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("pids");
    let status = probe(&[
        "--children",
        "2",
        "--depth",
        "2",
        "--new-session",
        "--ignore-sigterm",
        "--descendant-sleep-ms",
        "60000",
        "--pidfile",
        pidfile.to_str().expect("utf-8 path"),
        "--stdout",
        "done",
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .status();
    // Read the pids before asserting anything, so the guard kills them whatever happens.
    let tree = Tree::read(&pidfile);
    assert!(status.expect("run probe").success());
    let unique: BTreeSet<i32> = tree.pids.iter().map(|p| p.as_raw()).collect();
    assert_eq!(tree.pids.len(), 1 + 2 + 4, "pidfile: {:?}", tree.pids);
    assert_eq!(unique.len(), tree.pids.len());
    let top = tree.pids[0];
    assert!(is_gone(top), "the top probe has exited");
    for pid in &tree.pids[1..] {
        assert!(!is_gone(*pid), "descendant {pid} should be alive");
        assert_eq!(
            getsid(Some(*pid)),
            Ok(*pid),
            "descendant {pid} leads its own session"
        );
        if let Some(ignored) = ignores_sigterm(*pid) {
            assert!(ignored, "descendant {pid} should ignore SIGTERM");
        }
    }
    tree.kill_all();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !tree.pids.iter().all(|pid| is_gone(*pid)) {
        assert!(Instant::now() < deadline, "descendants survived SIGKILL");
        std::thread::park_timeout(Duration::from_millis(10));
    }
}

#[test]
fn session_children_leave_the_group_and_are_recorded_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("pids");
    let escaped = dir.path().join("escaped");
    let mut child = probe(&[
        "--children",
        "2",
        "--depth",
        "2",
        "--session-children",
        "2",
        "--session-pidfile",
        escaped.to_str().expect("utf-8 path"),
        "--ignore-sigterm",
        "--descendant-sleep-ms",
        "60000",
        "--sleep-ms",
        "60000",
        "--pidfile",
        pidfile.to_str().expect("utf-8 path"),
        "--stdout",
        "ready",
    ])
    .process_group(0)
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("spawn probe");
    // The probe writes its output once its whole tree is recorded.
    let mut ready = [0u8; 5];
    let read = child
        .stdout
        .take()
        .map(|mut out| std::io::Read::read_exact(&mut out, &mut ready));
    let group = Tree::read(&pidfile);
    let sessions = Tree::read(&escaped);
    let _ = child.kill();
    let _ = child.wait();
    assert!(matches!(read, Some(Ok(()))), "the probe said it is ready");
    assert_eq!(
        group.pids.len(),
        1 + 2 + 4,
        "in the group: {:?}",
        group.pids
    );
    assert_eq!(sessions.pids.len(), 2 + 4, "escaped: {:?}", sessions.pids);
    let top = group.pids[0];
    assert_eq!(top.as_raw(), i32::try_from(child.id()).expect("a pid"));
    for pid in &group.pids[1..] {
        assert_eq!(
            getpgid(Some(*pid)),
            Ok(top),
            "{pid} stays in the probe's group"
        );
        assert_eq!(
            getsid(Some(*pid)),
            getsid(None),
            "{pid} stays in its session"
        );
    }
    for pid in &sessions.pids {
        assert_eq!(getsid(Some(*pid)), Ok(*pid), "{pid} leads its own session");
        if let Some(ignored) = ignores_sigterm(*pid) {
            assert!(ignored, "{pid} should ignore SIGTERM");
        }
    }
}
