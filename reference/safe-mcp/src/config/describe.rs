//! Each way a policy is refused, as the one line an operator reads: what is wrong, where the
//! value came from (the variable overriding the key, the file and line, or the default), the
//! value, and, where it is not obvious, what to do. The core loader decides; this only says
//! where.

use std::path::Path;

use mcp_safety_core::policy::paths::best_canonical;
use mcp_safety_core::policy::raw::RawPolicy;
use mcp_safety_core::policy::{Overrides, PolicyError, Server};

use super::locate::{Document, Found};

/// A setting that is a path: its name in core errors, its key in the file, the variable that
/// overrides it.
struct PathSetting {
    core: &'static str,
    key: &'static str,
    var: &'static str,
    env: fn(&Overrides) -> Option<&String>,
    raw: fn(&RawPolicy) -> Option<&String>,
}

const SETTINGS: [PathSetting; 4] = [
    PathSetting {
        core: "jail_root",
        key: "terminal.jail_root",
        var: "SAFE_MCP_JAIL_ROOT",
        env: |o| o.jail_root.as_ref(),
        raw: |r| r.terminal.jail_root.as_ref(),
    },
    PathSetting {
        core: "workspace_root",
        key: "files.workspace_root",
        var: "SAFE_MCP_WORKSPACE_ROOT",
        env: |o| o.workspace_root.as_ref(),
        raw: |r| r.files.workspace_root.as_ref(),
    },
    PathSetting {
        core: "audit_log",
        key: "audit_log",
        var: "SAFE_MCP_AUDIT_LOG",
        env: |o| o.audit_log.as_ref(),
        raw: |r| r.audit_log.as_ref(),
    },
    PathSetting {
        core: "journal",
        key: "files.journal",
        var: "SAFE_MCP_FILES_JOURNAL",
        env: |o| o.files_journal.as_ref(),
        raw: |r| r.files.journal.as_ref(),
    },
];

fn setting(core: &str) -> Option<&'static PathSetting> {
    SETTINGS.iter().find(|s| s.core == core)
}

/// What a policy refusal is about, to say where its value came from.
pub(crate) struct Context<'a> {
    /// The policy file.
    pub doc: &'a Document<'a>,
    /// The file as parsed.
    pub raw: &'a RawPolicy,
    /// The variables in force.
    pub overrides: &'a Overrides,
    /// The server loading it (which root it requires).
    pub server: Server,
}

/// The line for `error`.
pub(crate) fn policy_error(error: &PolicyError, cx: &Context<'_>) -> String {
    match error {
        PolicyError::Value {
            key,
            value,
            problem,
        } => match (key.as_str(), cx.overrides.audit_fail_mode.as_ref()) {
            ("audit_fail_mode", Some(v)) => format!("SAFE_MCP_AUDIT_FAIL_MODE={v:?} {problem}"),
            _ => at_key(cx.doc, key, value.as_deref(), problem),
        },
        PolicyError::RootMissing { key, .. } => match setting(key) {
            Some(s) => root_missing(cx, s),
            None => error.to_string(),
        },
        PolicyError::RootNotDirectory { path, .. } => {
            let root = match cx.server {
                Server::Terminal => "jail_root",
                Server::Files => "workspace_root",
            };
            match setting(root) {
                Some(s) => root_unusable(cx, s, Path::new(path)),
                None => error.to_string(),
            }
        }
        PolicyError::StateInsideJail {
            key,
            path,
            jail_key,
            jail,
        } => match (setting(key), setting(jail_key)) {
            (Some(s), Some(j)) => state_inside(cx, s, Path::new(path), j, jail),
            _ => error.to_string(),
        },
        other => other.to_string(),
    }
}

/// `FILE:LINE: key = VALUE problem`: see [`located`].
pub(crate) fn at_key(doc: &Document<'_>, key: &str, value: Option<&str>, problem: &str) -> String {
    format!("{} {problem}", located(doc, key, value))
}

/// `FILE:LINE: key problem`, for a key that is itself what is wrong.
pub(crate) fn at_key_only(doc: &Document<'_>, key: &str, problem: &str) -> String {
    let place = match doc.find(key) {
        Some(found) => format!("{}:{}", doc.file(), found.line),
        None => doc.file().to_string(),
    };
    format!("{place}: {key} {problem}")
}

/// `FILE:LINE: key = VALUE`, the value as written when the key is found, else `value`;
/// without a line when not even the key's table is written.
fn located(doc: &Document<'_>, key: &str, value: Option<&str>) -> String {
    let (place, written) = match doc.find(key) {
        Some(Found { line, written }) => (format!("{}:{line}", doc.file()), written),
        None => (doc.file().to_string(), None),
    };
    let written = written.map(|w| {
        if w.contains('\n') {
            one_line(w)
        } else {
            w.to_string()
        }
    });
    match written.or(value.map(str::to_string)) {
        Some(v) => format!("{place}: {key} = {v}"),
        None => format!("{place}: {key}"),
    }
}

/// A TOML error: `FILE:LINE:COLUMN: message (in "the line")`.
pub(crate) fn parse_error(doc: &Document<'_>, error: &toml::de::Error) -> String {
    let message = one_line(error.message());
    match error.span() {
        Some(span) => {
            let (line, column) = doc.position(span.start);
            let text = doc.line_text(line);
            let shown: String = text.chars().take(60).collect();
            let cut = if shown.len() < text.len() { "..." } else { "" };
            format!(
                "{}:{line}:{column}: {message} (in {shown:?}{cut})",
                doc.file()
            )
        }
        None => format!("{}: {message}", doc.file()),
    }
}

/// A root that is neither in the file nor in its variable (or is written empty).
fn root_missing(cx: &Context<'_>, s: &PathSetting) -> String {
    let (table, name) = s.key.split_once('.').unwrap_or(("", s.key));
    if (s.raw)(cx.raw).is_some_and(|v| v.is_empty()) {
        return at_key(
            cx.doc,
            s.key,
            Some("\"\""),
            &format!("is empty (set it, or {}, to an existing directory)", s.var),
        );
    }
    format!(
        "{}: {} is not set (set {name} under [{table}], or {}, to an existing directory)",
        cx.doc.file(),
        s.key,
        s.var
    )
}

/// Where the value of `s` came from, as a message starts: `VAR="value"`,
/// `FILE:LINE: key = "value"`, or `the default key "path" (next to FILE)`; with the value
/// as given (to compare with where it leads).
fn origin(cx: &Context<'_>, s: &PathSetting, default: &Path) -> (String, String) {
    if let Some(v) = (s.env)(cx.overrides) {
        return (format!("{}={v:?}", s.var), v.clone());
    }
    match (s.raw)(cx.raw).filter(|v| !v.is_empty()) {
        Some(v) => (located(cx.doc, s.key, Some(&format!("{v:?}"))), v.clone()),
        None => (
            format!(
                "the default {} {:?} (next to {})",
                s.key,
                default.as_os_str(),
                cx.doc.file()
            ),
            default.display().to_string(),
        ),
    }
}

/// Where the root of `j` was set, for a message about something inside it.
fn set_at(cx: &Context<'_>, j: &PathSetting) -> String {
    if (j.env)(cx.overrides).is_some() {
        return format!("set by {}", j.var);
    }
    match cx.doc.find(j.key) {
        Some(found) => format!("set at {}:{}", cx.doc.file(), found.line),
        None => format!("set in {}", cx.doc.file()),
    }
}

/// ` (resolved to "...")` when `to` is not what was given.
fn resolved(given: &str, to: &Path) -> String {
    if Path::new(given) == to {
        String::new()
    } else {
        format!(" (resolved to {:?})", to.as_os_str())
    }
}

/// A root that does not exist, is not a directory, or cannot be looked at.
fn root_unusable(cx: &Context<'_>, s: &PathSetting, path: &Path) -> String {
    let (from, given) = origin(cx, s, path);
    let problem = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            "does not exist (create the directory or correct the path)".to_string()
        }
        Ok(m) if !m.is_dir() => {
            "is not a directory (create the directory or correct the path)".to_string()
        }
        Ok(_) => "cannot be resolved (check the path and its permissions)".to_string(),
        Err(e) => format!(
            "cannot be opened: {} (check the path and its permissions)",
            io_reason(&e)
        ),
    };
    format!("{from}{} {problem}", resolved(&given, path))
}

/// A state file (`s`: the audit log or the journal) that resolves inside the root `j`.
fn state_inside(
    cx: &Context<'_>,
    s: &PathSetting,
    path: &Path,
    j: &PathSetting,
    jail: &str,
) -> String {
    let (from, given) = origin(cx, s, path);
    let fix = if (s.env)(cx.overrides).is_some() {
        format!("set {} to a path outside it", s.var)
    } else if (s.raw)(cx.raw).is_some_and(|v| !v.is_empty()) {
        format!("set {} to a path outside it", s.key)
    } else {
        format!("set {} or {} to a path outside it", s.key, s.var)
    };
    format!(
        "{from}{} must be outside {} {jail:?}, {} ({fix})",
        resolved(&given, &best_canonical(path)),
        j.key,
        set_at(cx, j)
    )
}

/// `text` with every run of white space (line breaks included) as one space: a value written
/// over several lines, a TOML message, as one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The OS reason of `e`, in lowercase (`permission denied`).
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_lowercase(),
        None => e.kind().to_string(),
    }
}
