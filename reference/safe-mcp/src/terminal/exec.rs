//! Running an allowed argv through the core's contained execution, and shaping what it
//! produced: the child environment (PATH, HOME, LANG only), program lookup on that PATH, and
//! output that is redacted first and capped second.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_safety_core::exec::lookup::{find_on_path, is_executable_file};
use mcp_safety_core::exec::{self, Captured, ExecSpec, Termination};
use mcp_safety_core::policy::Redactor;
use mcp_safety_core::policy::redactor::Bounded;
use serde_json::{Map, Value};

use crate::result::{Code, OperationResult};

/// The only variables a child gets, taken from the server's own environment when set.
pub const ENV_ALLOWLIST: &[&str] = &["PATH", "HOME", "LANG"];
/// PATH for the child when the server has none.
pub const FALLBACK_PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// Raw bytes captured per stream beyond the cap, so redaction sees whole secrets that
/// straddle the cap.
pub const CAPTURE_MARGIN: usize = 64 * 1024;

/// LANG for the child when the server has none.
pub const FALLBACK_LANG: &str = "C.UTF-8";

/// The child's environment: exactly PATH, HOME and LANG, from the server's environment when
/// set there, else [`FALLBACK_PATH`], the jail root and [`FALLBACK_LANG`]. Nothing else.
pub fn child_env(jail: &Path) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for k in ENV_ALLOWLIST {
        if let Some(v) = std::env::var(k).ok().filter(|v| !v.is_empty()) {
            env.insert((*k).to_string(), v);
        }
    }
    env.entry("PATH".into())
        .or_insert_with(|| FALLBACK_PATH.to_string());
    env.entry("HOME".into())
        .or_insert_with(|| jail.display().to_string());
    env.entry("LANG".into())
        .or_insert_with(|| FALLBACK_LANG.to_string());
    env
}

/// An absolute `name` itself, else the first executable regular file named `name` in the
/// `PATH` of `env` (absolute directories only: a relative PATH entry would resolve against
/// the jail). The policy has already refused relative paths.
pub fn resolve_program(name: &str, env: &BTreeMap<String, String>) -> Option<PathBuf> {
    if name.starts_with('/') {
        let p = PathBuf::from(name);
        return is_executable_file(&p).then_some(p);
    }
    if name.contains('/') {
        return None;
    }
    let path = env.get("PATH").map(String::as_str).unwrap_or(FALLBACK_PATH);
    find_on_path(name, OsStr::new(path))
}

/// Limits for one run.
#[derive(Debug, Clone, Copy)]
pub struct RunLimits {
    /// Wall-clock limit.
    pub timeout: Duration,
    /// Bytes per stream after redaction.
    pub cap: usize,
}

/// When the raw capture itself was cut, this many bytes at the end of the redacted text are
/// discarded: a secret cut by the capture limit does not match its pattern, so its prefix
/// would pass redaction; it sits at the very end, inside this guard.
pub const CAPTURE_TAIL_GUARD: usize = 4096;

/// The longest prefix of `s` of at most `n` bytes that ends on a character boundary.
fn prefix(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Redacts then caps one stream. When the raw capture was cut, the last
/// [`CAPTURE_TAIL_GUARD`] bytes of the redacted text are dropped before the cap applies.
fn shape(c: &Captured, redactor: &Redactor, cap: usize) -> Bounded {
    let text = String::from_utf8_lossy(&c.bytes);
    if c.dropped_bytes == 0 {
        return redactor.redact_then_truncate(&text, cap);
    }
    let red = redactor.redact(&text);
    let trusted = prefix(&red, red.len().saturating_sub(CAPTURE_TAIL_GUARD));
    Bounded {
        text: prefix(trusted, cap).to_string(),
        truncated: true,
    }
}

/// Runs `program` with `args` in `cwd` (all already checked) and builds the result; its
/// reason is the policy's `allowed_because` (as the document shows), plus any truncation.
pub fn execute(
    program: PathBuf,
    args: Vec<String>,
    cwd: PathBuf,
    env: BTreeMap<String, String>,
    limits: RunLimits,
    redactor: &Redactor,
    allowed_because: String,
) -> OperationResult {
    const ACTION: &str = "run_command";
    let spec = ExecSpec {
        program,
        args,
        cwd,
        env,
        identity: None,
        timeout: limits.timeout,
        grace: exec::DEFAULT_GRACE,
        capture_limit: limits.cap.saturating_add(CAPTURE_MARGIN),
    };
    let out = match exec::run(&spec) {
        Ok(out) => out,
        Err(e) => {
            return OperationResult::refused(
                Code::OperationFailed,
                ACTION,
                redactor.redact(&e.to_string()).into_owned(),
            );
        }
    };
    let stdout = shape(&out.stdout, redactor, limits.cap);
    let stderr = shape(&out.stderr, redactor, limits.cap);
    let truncated = stdout.truncated || stderr.truncated;
    let mut detail = Map::new();
    let (mut r, exit_code) = match out.termination {
        Termination::TimedOut => {
            let secs = limits.timeout.as_secs_f64();
            let r = OperationResult::refused(
                Code::Timeout,
                ACTION,
                format!("the command ran past {secs}s and was killed with its process tree"),
            );
            detail.insert("timeout_seconds".into(), Value::from(secs));
            (r, Value::Null)
        }
        Termination::Exited(code) => {
            let (c, reason) = if truncated {
                let cap = limits.cap;
                let reason = format!("{allowed_because}; output truncated at {cap} bytes");
                (Code::OutputTruncated, reason)
            } else {
                (Code::Ok, allowed_because)
            };
            (
                OperationResult::new(true, c, ACTION, reason),
                Value::from(code),
            )
        }
        Termination::Signaled(sig) => {
            detail.insert("signal".into(), Value::from(sig));
            let c = if truncated {
                Code::OutputTruncated
            } else {
                Code::Ok
            };
            let reason = format!("{allowed_because}; killed by signal {sig}");
            (OperationResult::new(true, c, ACTION, reason), Value::Null)
        }
    };
    detail.insert("exit_code".into(), exit_code);
    detail.insert("stdout".into(), Value::String(stdout.text));
    detail.insert("stderr".into(), Value::String(stderr.text));
    detail.insert("truncated".into(), Value::Bool(truncated));
    if out.descendants_killed > 0 {
        detail.insert(
            "descendants_killed".into(),
            Value::from(out.descendants_killed as u64),
        );
    }
    r.detail = detail;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(bytes: &[u8], dropped: u64) -> Captured {
        Captured {
            bytes: bytes.to_vec(),
            total_bytes: bytes.len() as u64 + dropped,
            retained_bytes: bytes.len() as u64,
            dropped_bytes: dropped,
        }
    }

    #[test]
    fn a_capture_cut_drops_the_tail_guard() {
        let r = Redactor::builtin();
        let mut raw = "a".repeat(CAPTURE_TAIL_GUARD + 10).into_bytes();
        raw.extend_from_slice(b"sk-abcdefgh");
        let b = shape(&captured(&raw, 100), &r, 1_000_000);
        assert_eq!(b.text, "a".repeat(10 + 11));
        assert!(b.truncated);
        let b = shape(&captured(&raw, 100), &r, 5);
        assert_eq!(b.text, "aaaaa");
        let b = shape(&captured(b"short sk-abcdefgh", 100), &r, 1000);
        assert_eq!(b.text, "");
        let b = shape(
            &captured(b"ok sk-abcdefghijklmnopqrstuvwxyz\n", 0),
            &r,
            1000,
        );
        assert_eq!(b.text, "ok [REDACTED]\n");
        assert!(!b.truncated);
    }

    #[test]
    fn env_is_only_the_allowlist() {
        let env = child_env(Path::new("/jail"));
        let keys: Vec<&str> = env.keys().map(String::as_str).collect();
        assert_eq!(keys, ["HOME", "LANG", "PATH"]);
        assert!(resolve_program("sh", &env).is_some());
        assert!(resolve_program("no-such-program-here", &env).is_none());
        assert_eq!(
            resolve_program("/bin/sh", &env),
            Some(PathBuf::from("/bin/sh"))
        );
        assert!(resolve_program("bin/sh", &env).is_none());
    }

    #[test]
    fn a_program_is_an_absolute_runnable_file_or_a_bare_name_on_the_path() {
        // What is runnable, and the search itself: mcp_safety_core::exec::lookup.
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let env = BTreeMap::from([("PATH".to_string(), dir.path().display().to_string())]);
        assert_eq!(resolve_program("tool", &env), Some(tool.clone()));
        assert_eq!(
            resolve_program(tool.to_str().unwrap(), &env),
            Some(tool.clone())
        );
        assert_eq!(resolve_program(dir.path().to_str().unwrap(), &env), None);
        assert_eq!(
            resolve_program("sub/tool", &env),
            None,
            "relative paths are the policy's"
        );
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        // "é" is two bytes: a cut inside it moves back to the character's start. On a thread
        // with a deadline, so a cut that never finds a boundary fails instead of hanging.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let cuts = [
                prefix("aé", 2),
                prefix("aé", 3),
                prefix("a€", 3),
                prefix("a€", 9),
            ];
            let _ = tx.send(cuts.map(str::to_string));
        });
        let cuts = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("prefix returned");
        assert_eq!(cuts, ["a", "aé", "a", "a€"]);
    }
}
