//! The JSON report: the whole run as one document for programs (dashboards, diffing two runs).
//!
//! The field names written here are a stable public interface: add fields if needed, never
//! rename or remove one. Unlike the human report, nothing is cut: a program may want all of it.

use super::{RunReport, ScenarioResult, Status};
use serde_json::{Value, json};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Builds the JSON document of a run, so callers can embed or inspect it without a file:
/// `{"target", "target_file", "summary": {"passed", "failed", "skipped", "warnings"}, "duration_ms",
/// "scenarios": [...], "baseline": {"stale", "unknown"}, "not_judged": [...]}`.
pub fn to_json(report: &RunReport) -> Value {
    let s = report.summary();
    json!({
        "target": report.target,
        "target_file": report.target_file,
        "summary": {
            "passed": s.passed,
            "failed": s.failed,
            "skipped": s.skipped,
            "warnings": s.warnings,
        },
        "duration_ms": millis(report.duration),
        "scenarios": report.scenarios.iter().map(scenario_json).collect::<Vec<_>>(),
        "baseline": {
            "stale": report.stale_baseline,
            "unknown": report.unknown_baseline,
        },
        "not_judged": report.not_judged,
    })
}

fn scenario_json(r: &ScenarioResult) -> Value {
    let status = match r.status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::Skipped => "skipped",
    };
    let failure = r.failure.as_ref().map_or(Value::Null, failure_json);
    json!({
        "name": r.name,
        "file": r.file,
        "suite": r.suite,
        "tags": r.tags,
        "status": status,
        "duration_ms": millis(r.duration),
        "skip_reason": r.skip_reason,
        "failure": failure,
        "baseline_expected_failure": r.baseline_expected_failure,
        "level": r.level,
        "warnings": r.warnings.iter().map(failure_json).collect::<Vec<_>>(),
        "source": r.sources,
    })
}

fn failure_json(f: &super::Failure) -> Value {
    // `Failure` holds only strings, numbers and JSON values, so this cannot fail; keep the
    // message even if it somehow did.
    serde_json::to_value(f).unwrap_or_else(|e| {
        json!({
            "kind": "error",
            "level": f.level,
            "message": format!("{} (failure details could not be serialized: {e})", f.message),
        })
    })
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Writes the JSON report (pretty, with a final newline) to `path` atomically, so a reader
/// polling the file, or a run that is killed half-way, never sees a truncated document.
///
/// # Errors
/// When the directory is missing or not writable, or `path` names a directory.
pub fn write_json(report: &RunReport, path: &Path) -> io::Result<()> {
    let mut text = serde_json::to_string_pretty(&to_json(report)).map_err(io::Error::other)?;
    text.push('\n');
    write_atomically(path, text.as_bytes())
}

/// Writes `bytes` to a fresh temporary file next to `path` (same directory, hence same file
/// system), syncs it, then renames it over `path`: readers see the old file or the whole new
/// one, never a part. The temporary file is removed if anything fails.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let file_name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a file path: {}", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };

    let mut attempt = 0;
    let (tmp, file) = loop {
        let mut name = std::ffi::OsString::from(".");
        name.push(file_name);
        name.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = dir.join(name);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => break (tmp, file),
            // A leftover of a killed process that had our pid: try the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    };

    let result = fill_and_rename(file, bytes, &tmp, path);
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn fill_and_rename(mut file: File, bytes: &[u8], tmp: &Path, path: &Path) -> io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()?;
    // Closed before the rename, which Windows requires.
    drop(file);
    fs::rename(tmp, path)
}
