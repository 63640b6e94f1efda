//! One tool call's git subprocesses: every run goes through the core's contained execution
//! (`exec::run`: process-tree containment, bounded capture, timeout) with the hardened
//! environment, and is recorded for the audit event (counters only, never output).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcp_safety_core::exec::{self, Captured, ExecResult, ExecSpec, Termination};
use serde_json::{Value, json};

use super::codes;
use super::harden::{self, CONFIG_LIST_ARGS, GIT_TIMEOUT};
use crate::contract::ErrorInfo;
use crate::error::ToolError;

/// Longest git error line passed back to the caller.
const MAX_ERROR_LINE_CHARS: usize = 300;

/// The git subprocesses of one tool call.
#[derive(Debug)]
pub struct Session {
    git: Option<PathBuf>,
    root: PathBuf,
    env: BTreeMap<String, String>,
    hardening: Vec<String>,
    runs: Vec<Value>,
}

impl Session {
    /// A session for the workspace at `root` (canonical), with the cached git executable.
    pub fn new(root: &Path) -> Self {
        Session::with_git(harden::git_executable().map(Path::to_path_buf), root)
    }

    /// A session with an explicit git executable (`None`: git is unavailable).
    pub fn with_git(git: Option<PathBuf>, root: &Path) -> Self {
        Session {
            git,
            root: root.to_path_buf(),
            env: harden::hardened_env(root),
            hardening: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// Enumerates the repository's drivers and prepares the neutralising options. Must be
    /// called before [`Session::run`].
    pub fn harden(&mut self) -> Result<(), ToolError> {
        let args = CONFIG_LIST_ARGS.iter().map(|s| s.to_string()).collect();
        let listing = self.exec("config", args)?;
        let drivers = harden::parse_config_names(&listing.bytes, listing.dropped_bytes > 0)
            .map_err(|e| ToolError::refused(codes::GIT_FAILED, format!("{e}; git was not run")))?;
        self.hardening = harden::hardening_args(&drivers);
        Ok(())
    }

    /// Runs `git <hardening> <args>` and returns its stdout when it exited 0.
    pub fn run(&mut self, step: &'static str, args: Vec<String>) -> Result<Captured, ToolError> {
        if self.hardening.is_empty() {
            return Err(ToolError::internal("git session used before hardening"));
        }
        let mut full = self.hardening.clone();
        full.extend(args);
        self.exec(step, full)
    }

    /// The audit details of the runs so far.
    pub fn audit_details(&self) -> Value {
        let basename = self
            .git
            .as_deref()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned());
        json!({
            "executable": { "basename": basename },
            "runs": self.runs,
        })
    }

    fn exec(&mut self, step: &'static str, args: Vec<String>) -> Result<Captured, ToolError> {
        let Some(git) = self.git.clone() else {
            return Err(ToolError::refused(
                codes::GIT_NOT_FOUND,
                "git was not found on the server's PATH",
            ));
        };
        let spec = ExecSpec {
            program: git,
            args,
            cwd: self.root.clone(),
            env: self.env.clone(),
            identity: None,
            timeout: GIT_TIMEOUT,
            grace: exec::DEFAULT_GRACE,
            capture_limit: exec::MAX_CAPTURE_BYTES_PER_STREAM,
        };
        let result = match exec::run(&spec) {
            Ok(r) => r,
            Err(e) => {
                self.runs
                    .push(json!({"step": step, "error_code": e.code()}));
                return Err(ToolError::refused(
                    codes::GIT_FAILED,
                    format!("git could not be started ({})", e.code()),
                ));
            }
        };
        self.runs.push(run_details(step, &spec.program, &result));
        classify(&result, self.root.to_string_lossy().as_ref())?;
        Ok(result.stdout)
    }
}

/// Audit metadata of one run: never output, only sizes and how it ended.
fn run_details(step: &str, program: &Path, r: &ExecResult) -> Value {
    let counters = |c: &Captured| {
        json!({
            "total_bytes": c.total_bytes,
            "retained_bytes": c.retained_bytes,
            "dropped_bytes": c.dropped_bytes,
        })
    };
    json!({
        "step": step,
        "executable": program.file_name().map(|n| n.to_string_lossy().into_owned()),
        "returncode": returncode(r.termination),
        "timed_out": r.termination == Termination::TimedOut,
        "duration_ms": r.duration.as_millis() as u64,
        "stdout_bytes": r.stdout.total_bytes,
        "stderr_bytes": r.stderr.total_bytes,
        "capture": {
            "stdout": counters(&r.stdout),
            "stderr": counters(&r.stderr),
            "descendants_killed": r.descendants_killed,
            "pipes_forced_closed": r.pipes_forced_closed,
        },
    })
}

/// Exit status as a number: the code, `-signo` when killed by a signal, none on timeout.
fn returncode(t: Termination) -> Option<i32> {
    match t {
        Termination::Exited(c) => Some(c),
        Termination::Signaled(s) => Some(-s),
        Termination::TimedOut => None,
    }
}

/// Maps how a run ended to success or a refusal.
fn classify(r: &ExecResult, root: &str) -> Result<(), ToolError> {
    let stderr = String::from_utf8_lossy(&r.stderr.bytes);
    match r.termination {
        Termination::Exited(0) => Ok(()),
        Termination::TimedOut => Err(ToolError::Refused(ErrorInfo::new(
            codes::GIT_TIMED_OUT,
            format!(
                "git did not finish within {} s; its process tree was terminated",
                GIT_TIMEOUT.as_secs()
            ),
            true,
        ))),
        Termination::Exited(_) if is_not_a_repository(&stderr) => Err(ToolError::refused(
            codes::NOT_A_GIT_REPOSITORY,
            "the workspace root is not a git repository",
        )),
        t => Err(ToolError::refused(
            codes::GIT_FAILED,
            format!(
                "git failed (exit {}): {}",
                returncode(t).map_or_else(|| "none".to_string(), |c| c.to_string()),
                first_error_line(&stderr, root)
            ),
        )),
    }
}

/// True when git's stderr says there is no usable repository: `fatal: not a git repository`
/// (exit 128), `warning: Not a git repository. Use --no-index ...` (`diff`, exit 129), or an
/// unreadable `.git` file.
fn is_not_a_repository(stderr: &str) -> bool {
    let lower = stderr.to_ascii_lowercase();
    lower.contains("not a git repository") || lower.contains("invalid gitfile format")
}

/// The first non-empty stderr line, with the workspace root replaced and bounded.
pub(super) fn first_error_line(stderr: &str, root: &str) -> String {
    let line = stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no error message");
    let line = if root.is_empty() {
        line.to_string()
    } else {
        line.replace(root, "<workspace>")
    };
    match line.char_indices().nth(MAX_ERROR_LINE_CHARS) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_line_is_first_nonempty_redacted_and_bounded() {
        assert_eq!(
            first_error_line(
                "\n  fatal: bad config line 1 in file /ws/.git/config\nmore",
                "/ws"
            ),
            "fatal: bad config line 1 in file <workspace>/.git/config"
        );
        assert_eq!(first_error_line("", "/ws"), "no error message");
        let long = "x".repeat(1000);
        assert_eq!(
            first_error_line(&long, "/ws").chars().count(),
            MAX_ERROR_LINE_CHARS + 1
        );
    }

    #[test]
    fn not_a_repository_messages() {
        assert!(is_not_a_repository(
            "fatal: not a git repository: '/ws/.git'\n"
        ));
        assert!(is_not_a_repository(
            "fatal: invalid gitfile format: /ws/.git"
        ));
        assert!(is_not_a_repository(
            "warning: Not a git repository. Use --no-index to compare two paths"
        ));
        assert!(!is_not_a_repository("fatal: bad object HEAD"));
    }

    fn result(termination: Termination, stderr: &str) -> ExecResult {
        let captured = |bytes: &[u8]| {
            let mut b = exec::CaptureBuffer::new(64);
            b.push(bytes);
            b.finish()
        };
        ExecResult {
            termination,
            stdout: captured(b""),
            stderr: captured(stderr.as_bytes()),
            duration: std::time::Duration::ZERO,
            descendants_killed: 0,
            pipes_forced_closed: false,
        }
    }

    fn code_of(r: Result<(), ToolError>) -> Option<(String, bool)> {
        match r {
            Ok(()) => None,
            Err(ToolError::Refused(e)) => Some((e.code, e.retryable)),
            Err(ToolError::Protocol(e)) => panic!("protocol error {e:?}"),
        }
    }

    #[test]
    fn classification() {
        let ok = classify(&result(Termination::Exited(0), "warning: x"), "/ws");
        assert_eq!(code_of(ok), None);
        let timed_out = classify(&result(Termination::TimedOut, ""), "/ws");
        assert_eq!(
            code_of(timed_out),
            Some((codes::GIT_TIMED_OUT.into(), true))
        );
        let no_repo = result(
            Termination::Exited(128),
            "fatal: not a git repository: '/ws/.git'",
        );
        assert_eq!(
            code_of(classify(&no_repo, "/ws")),
            Some((codes::NOT_A_GIT_REPOSITORY.into(), false))
        );
        let killed = classify(&result(Termination::Signaled(9), ""), "/ws");
        assert_eq!(code_of(killed), Some((codes::GIT_FAILED.into(), false)));
        match classify(&result(Termination::Exited(1), "fatal: bad\n"), "/ws") {
            Err(ToolError::Refused(e)) => assert_eq!(e.message, "git failed (exit 1): fatal: bad"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_git_and_unhardened_runs_are_refused() {
        let mut s = Session::with_git(None, Path::new("/nonexistent-ws"));
        match s.harden() {
            Err(ToolError::Refused(e)) => assert_eq!(e.code, codes::GIT_NOT_FOUND),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            s.run("status", vec![]),
            Err(ToolError::Protocol(_))
        ));
        assert_eq!(s.audit_details()["runs"], json!([]));
    }

    #[test]
    fn returncodes() {
        assert_eq!(returncode(Termination::Exited(3)), Some(3));
        assert_eq!(returncode(Termination::Signaled(9)), Some(-9));
        assert_eq!(returncode(Termination::TimedOut), None);
    }
}
