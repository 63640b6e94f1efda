//! The undoable file organizer: `list_files`, `plan_organize`, `apply_plan`, `move_file`,
//! `undo_last_action`, `redo_last_action` (no MCP types; see [`crate::files_server`]).
//!
//! Two rule layers: PROTECTION (symlinks, always; `[[files.skip]] layer = "protection"`)
//! binds every tool; RESTRAINT (`layer = "restraint"`) binds only `plan_organize`, which acts
//! unprompted, and yields `NEEDS_EXPLICIT_REQUEST` there. Every call leaves an attempt and an
//! outcome record in the fail-closed audit trail; every move lands in the journal.

pub mod fsops;
mod history;
pub mod journal;
#[cfg(test)]
mod race_hook;
#[cfg(test)]
mod race_tests;
pub mod rules;
#[cfg(test)]
mod rules_tests;

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use mcp_safety_core::clock::{Clock, SystemClock};
use mcp_safety_core::jail::{JailError, RelPath};
use mcp_safety_core::policy::raw::RawFiles;
use mcp_safety_core::policy::{Policy, Redactor};
use mcp_safety_core::trail::AuditTrail;
use serde_json::{Map, Value, json};

use crate::audited::audited;
use crate::result::{Code, OperationResult};
use fsops::{FsError, Kind};
use journal::{Action, Journal, Move};
use rules::{RuleError, Rules, Verdict};

/// Largest plan when the policy sets none.
pub const DEFAULT_MAX_PLAN_MOVES: usize = 500;

#[derive(Debug, Clone)]
struct PlannedMove {
    src: String,
    dest: String,
    fingerprint: fsops::Fingerprint,
}

/// A configured organizer.
pub struct Organizer {
    root: PathBuf,
    rules: Rules,
    max_plan_moves: usize,
    trail: AuditTrail,
    redactor: Redactor,
    journal: Journal,
    plans: Mutex<HashMap<String, Vec<PlannedMove>>>,
    op: Mutex<()>,
}

impl std::fmt::Debug for Organizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Organizer")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

fn fs_code(e: &FsError) -> Code {
    match e {
        FsError::NotADirectory(_) => Code::PolicyDenied,
        FsError::NotFound(_) => Code::InvalidRequest,
        FsError::Exists(_) => Code::Conflict,
        FsError::SymlinkSwapped(_) => Code::PolicyDenied,
        FsError::TooManyEntries(_) | FsError::Io(_) => Code::OperationFailed,
    }
}

fn fs_refusal(action: &str, e: &FsError) -> OperationResult {
    OperationResult::refused(fs_code(e), action, e.to_string())
}

impl Organizer {
    /// From the validated policy and the policy file's text (for `[files]` rules).
    pub fn new(policy: Policy, policy_text: &str) -> Result<Organizer, String> {
        let raw: mcp_safety_core::policy::raw::RawPolicy =
            toml::from_str(policy_text).map_err(|e| e.to_string())?;
        Organizer::with_files(policy, &raw.files).map_err(|e| e.to_string())
    }

    /// From the validated policy and its `[files]` section as parsed (the server's startup
    /// parses the file once; [`crate::config`] names the line of a bad rule).
    pub fn with_files(policy: Policy, files: &RawFiles) -> Result<Organizer, RuleError> {
        // A policy loaded for `Server::Files` always has one; this is for one loaded for
        // the terminal.
        let Some(root) = policy.workspace_root.clone() else {
            return Err(RuleError {
                key: "files.workspace_root".into(),
                value: None,
                problem: "is required by the files server".into(),
            });
        };
        let rules = Rules::from_raw(files)?;
        let max_plan_moves = files
            .max_plan_moves
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .unwrap_or(DEFAULT_MAX_PLAN_MOVES);
        Ok(Organizer {
            root,
            rules,
            max_plan_moves,
            trail: AuditTrail::new(policy.audit_log, policy.audit_fail_mode),
            redactor: policy.redactor,
            journal: Journal::new(policy.journal),
            plans: Mutex::new(HashMap::new()),
            op: Mutex::new(()),
        })
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn open_root(&self) -> Result<OwnedFd, FsError> {
        fsops::open_root(&self.root)
    }

    /// A caller's path, relative to the workspace (or absolute inside it), normalized.
    fn resolve(&self, raw: &str) -> Result<String, (Code, String)> {
        let rel_raw = if raw.starts_with('/') {
            let p = mcp_safety_core::policy::paths::lexical_absolute(&self.root, Path::new(raw));
            match p.strip_prefix(&self.root) {
                Ok(r) => r.to_string_lossy().into_owned(),
                Err(_) => {
                    return Err((Code::PathEscape, format!("{raw} is outside the workspace")));
                }
            }
        } else {
            raw.to_string()
        };
        match RelPath::parse(&rel_raw) {
            Ok(r) if r.is_root() => Err((
                Code::InvalidRequest,
                "the path names the workspace itself".into(),
            )),
            Ok(r) => Ok(r.as_str().to_string()),
            Err(JailError::PathTraversal) | Err(JailError::PathAbsolute) => {
                Err((Code::PathEscape, format!("{raw} leaves the workspace")))
            }
            Err(e) => Err((Code::InvalidRequest, e.to_string())),
        }
    }

    // ----- tools -----

    /// `list_files`: read-only; each entry's name, kind, size, category, whether the
    /// organizer would move it and why not.
    pub fn list_files(&self, subdir: Option<&str>) -> OperationResult {
        let args = json!({ "subdir": subdir });
        self.serve("list_files", args, || {
            let rel = match subdir.filter(|s| !s.is_empty() && *s != ".") {
                None => String::new(),
                Some(s) => match self.resolve(s) {
                    Ok(r) => r,
                    Err((c, m)) => return OperationResult::refused(c, "list_files", m),
                },
            };
            let root = match self.open_root() {
                Ok(r) => r,
                Err(e) => return fs_refusal("list_files", &e),
            };
            let entries = match fsops::list(&root, &rel) {
                Ok(e) => e,
                Err(e) => return fs_refusal("list_files", &e),
            };
            let mut out = Vec::new();
            for e in &entries {
                let path = join(&rel, &e.name);
                let category = self.rules.category(&e.name);
                let (would_move, why_not, code) = match self.rules.plan_verdict(&e.name, e.kind) {
                    Verdict::Move => match &category {
                        Some(_) => (true, None, None),
                        None => (
                            false,
                            Some("no category matches its extension".to_string()),
                            None,
                        ),
                    },
                    Verdict::Ignore => (false, Some("folders are not filed".to_string()), None),
                    Verdict::Skip { code, reason } => (false, Some(reason), Some(code.as_str())),
                };
                out.push(json!({
                    "name": e.name, "path": path, "kind": e.kind.as_str(), "size": e.size,
                    "category": category, "would_move": would_move, "why_not": why_not,
                    "code": code,
                }));
            }
            let mut r = OperationResult::new(
                true,
                Code::Ok,
                "list_files",
                format!("{} entr(ies)", out.len()),
            );
            r.detail.insert("path".into(), json!(rel));
            r.detail.insert("count".into(), json!(out.len()));
            r.detail.insert("entries".into(), Value::Array(out));
            r
        })
    }

    /// `plan_organize`: proposes moves of the workspace's top-level files into category
    /// folders and lists skips. Changes nothing.
    pub fn plan_organize(&self) -> OperationResult {
        self.serve("plan_organize", json!({}), || {
            let root = match self.open_root() {
                Ok(r) => r,
                Err(e) => return fs_refusal("plan_organize", &e),
            };
            let entries = match fsops::list(&root, "") {
                Ok(e) => e,
                Err(e) => return fs_refusal("plan_organize", &e),
            };
            let mut moves = Vec::new();
            let mut shown_moves = Vec::new();
            let mut skips = Vec::new();
            let mut truncated = false;
            for e in &entries {
                match self.rules.plan_verdict(&e.name, e.kind) {
                    Verdict::Ignore => {}
                    Verdict::Skip { code, reason } => skips.push(json!({
                        "name": e.name, "code": code.as_str(), "reason": reason,
                        "rule": if code == Code::PolicyDenied { "protection" } else { "restraint" },
                    })),
                    Verdict::Move => {
                        let Some(category) = self.rules.category(&e.name) else {
                            continue;
                        };
                        let dest = format!("{category}/{}", e.name);
                        match fsops::lstat(&root, &dest) {
                            Ok(None) => {}
                            Ok(Some(_)) => {
                                skips.push(json!({
                                    "name": e.name, "code": Code::Conflict.as_str(),
                                    "reason": format!("{dest} already exists and is never overwritten"),
                                    "rule": null,
                                }));
                                continue;
                            }
                            Err(err) => {
                                skips.push(json!({
                                    "name": e.name, "code": fs_code(&err).as_str(),
                                    "reason": err.to_string(), "rule": null,
                                }));
                                continue;
                            }
                        }
                        if moves.len() >= self.max_plan_moves {
                            truncated = true;
                            continue;
                        }
                        shown_moves.push(json!({
                            "src": e.name, "dest": dest, "category": category, "size": e.size,
                        }));
                        moves.push(PlannedMove {
                            src: e.name.clone(),
                            dest,
                            fingerprint: e.fingerprint,
                        });
                    }
                }
            }
            let plan_id = match mcp_safety_core::ids::random_hex(16) {
                Ok(id) => id,
                Err(e) => {
                    return OperationResult::refused(
                        Code::InternalError,
                        "plan_organize",
                        format!("cannot make a plan id: {e}"),
                    );
                }
            };
            let n = moves.len();
            if let Ok(mut plans) = self.plans.lock() {
                plans.insert(plan_id.clone(), moves);
            }
            let mut r = OperationResult::new(
                true,
                Code::Ok,
                "plan_organize",
                format!("proposed {n} move(s), skipped {}", skips.len()),
            );
            r.detail.insert("plan_id".into(), json!(plan_id));
            r.detail
                .insert("created".into(), json!(SystemClock.now().to_rfc3339()));
            r.detail.insert("move_count".into(), json!(n));
            r.detail.insert("moves".into(), Value::Array(shown_moves));
            r.detail.insert("skip_count".into(), json!(skips.len()));
            r.detail.insert("skips".into(), Value::Array(skips));
            r.detail.insert("truncated".into(), json!(truncated));
            r
        })
    }

    /// `apply_plan`: all of the plan's moves, or (if anything changed since planning) none.
    pub fn apply_plan(&self, plan_id: &str) -> OperationResult {
        let args = json!({ "plan_id": plan_id });
        self.serve("apply_plan", args, || {
            let _op = self.op.lock();
            // Single-use: taken out whatever happens next.
            let plan = self.plans.lock().ok().and_then(|mut p| p.remove(plan_id));
            let Some(plan) = plan else {
                return OperationResult::refused(
                    Code::InvalidRequest,
                    "apply_plan",
                    "unknown plan id (plans are single-use and do not survive a restart)",
                );
            };
            let root = match self.open_root() {
                Ok(r) => r,
                Err(e) => return fs_refusal("apply_plan", &e),
            };
            for m in &plan {
                match fsops::lstat(&root, &m.src) {
                    Ok(Some(s))
                        if fsops::kind_of(&s) == Kind::File
                            && fsops::Fingerprint::from(&s) == m.fingerprint => {}
                    Ok(Some(_)) => {
                        return stale("apply_plan", format!("{} changed since planning", m.src));
                    }
                    Ok(None) => {
                        return stale("apply_plan", format!("{} vanished since planning", m.src));
                    }
                    Err(e) => return fs_refusal("apply_plan", &e),
                }
                match fsops::lstat(&root, &m.dest) {
                    Ok(None) => {}
                    Ok(Some(_)) => {
                        return stale(
                            "apply_plan",
                            format!("{} appeared since planning; nothing is overwritten", m.dest),
                        );
                    }
                    Err(e) => return fs_refusal("apply_plan", &e),
                }
            }
            let moves: Vec<Move> = plan
                .iter()
                .map(|m| Move {
                    src: m.src.clone(),
                    dest: m.dest.clone(),
                })
                .collect();
            let planned = moves.len();
            let action = Action {
                kind: "plan".into(),
                id: plan_id.to_string(),
                moves,
            };
            let mut r = self.record_new(&root, "apply_plan", action, true);
            if r.ok {
                r.reason = format!("moved {planned} file(s)");
                r.detail.insert("planned".into(), json!(planned));
                r.detail.insert("plan_id".into(), json!(plan_id));
            }
            r
        })
    }

    /// `move_file`: one named file to a full destination path (PROTECTION rules only).
    pub fn move_file(&self, src: &str, dest: &str) -> OperationResult {
        let args = json!({ "src": src, "dest": dest });
        self.serve("move_file", args, || {
            let _op = self.op.lock();
            let (src_rel, dest_rel) = match (self.resolve(src), self.resolve(dest)) {
                (Ok(s), Ok(d)) => (s, d),
                (Err((c, m)), _) | (_, Err((c, m))) => {
                    return OperationResult::refused(c, "move_file", m);
                }
            };
            let root = match self.open_root() {
                Ok(r) => r,
                Err(e) => return fs_refusal("move_file", &e),
            };
            let stat = match fsops::lstat(&root, &src_rel) {
                Ok(Some(s)) => s,
                Ok(None) => {
                    return OperationResult::refused(
                        Code::InvalidRequest,
                        "move_file",
                        format!("{src_rel} does not exist"),
                    );
                }
                Err(e) => return fs_refusal("move_file", &e),
            };
            let name = src_rel.rsplit('/').next().unwrap_or(&src_rel);
            let kind = fsops::kind_of(&stat);
            if let Some(reason) = self.rules.protection(name, kind) {
                return OperationResult::refused(Code::PolicyDenied, "move_file", reason);
            }
            if kind != Kind::File {
                return OperationResult::refused(
                    Code::InvalidRequest,
                    "move_file",
                    format!("{src_rel} is not a regular file"),
                );
            }
            if let Some(reason) = self
                .rules
                .protection(dest_rel.rsplit('/').next().unwrap_or(&dest_rel), Kind::File)
            {
                return OperationResult::refused(Code::PolicyDenied, "move_file", reason);
            }
            match fsops::lstat(&root, &dest_rel) {
                Ok(None) => {}
                Ok(Some(_)) => {
                    return OperationResult::refused(
                        Code::Conflict,
                        "move_file",
                        format!("{dest_rel} already exists and is never overwritten"),
                    );
                }
                Err(e) => return fs_refusal("move_file", &e),
            }
            let id = mcp_safety_core::ids::random_hex(16).unwrap_or_else(|_| "move".into());
            let action = Action {
                kind: "move".into(),
                id,
                moves: vec![Move {
                    src: src_rel.clone(),
                    dest: dest_rel.clone(),
                }],
            };
            let mut r = self.record_new(&root, "move_file", action, false);
            if r.ok {
                r.reason = format!("moved {src_rel}");
                r.detail = Map::new();
                r.detail.insert("src".into(), json!(src_rel));
                r.detail.insert("dest".into(), json!(dest_rel));
                r.detail.insert("moved".into(), json!(1));
            }
            r
        })
    }

    /// The single attempt/outcome point of every tool (fail-closed audit).
    fn serve(
        &self,
        action: &str,
        args: Value,
        body: impl FnOnce() -> OperationResult,
    ) -> OperationResult {
        audited(&self.trail, &self.redactor, action, &args, &["moves"], body)
    }
}

fn stale(action: &str, why: String) -> OperationResult {
    OperationResult::refused(
        Code::Conflict,
        action,
        format!("the plan is stale, nothing was moved: {why}"),
    )
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// Performs `moves` in order; if one fails, the ones already done are reversed (never
/// overwriting), so the whole set happens or none of it does.
fn perform(root: &OwnedFd, moves: &[Move], create_parents: bool) -> Result<(), FsError> {
    for (i, m) in moves.iter().enumerate() {
        #[cfg(test)]
        race_hook::fire(m);
        if let Err(e) = fsops::rename_noreplace(root, &m.src, &m.dest, create_parents) {
            roll_back(root, &moves[..i]);
            return Err(e);
        }
    }
    Ok(())
}

/// Reverses `done` (newest first), never overwriting; failures are logged.
fn roll_back(root: &OwnedFd, done: &[Move]) {
    for m in done.iter().rev() {
        if let Err(back) = fsops::rename_noreplace(root, &m.dest, &m.src, false) {
            tracing::error!("cannot roll back {} -> {}: {back}", m.dest, m.src);
        }
    }
}
