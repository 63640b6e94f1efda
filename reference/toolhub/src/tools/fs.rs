//! Filesystem tools, all through the core jail (`openat` + `O_NOFOLLOW`, never a path string
//! check): `read_file` and `list_directory` directly; `write_file` and `apply_patch` through the
//! approval lifecycle.
//!
//! Submission validates the path (refusals are REFUSED at once), checks `expected_hash`
//! (mismatch is CONFLICT at once), records the hash the file has now (`observed_sha256`, or
//! absent) in the protected payload, and returns APPROVAL_REQUIRED. The `_approved` resume
//! consumes the approval atomically BEFORE anything else (so any later failure still burns
//! it), then re-validates the path and writes atomically only if the file still has the
//! observed hash (checked by the jail immediately before the rename); otherwise CONFLICT and
//! nothing is written.

use mcp_safety_core::approvals::{ApprovalRecord, ConsumeError, Operation};
use mcp_safety_core::audit::AuditEvent;
use mcp_safety_core::digest::sha256_hex;
use mcp_safety_core::jail::{EntryKind, JailError, Precondition, RelPath};
use mcp_safety_core::patch::{PatchError, apply_unified_diff};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::jail_outcome;
use super::meta::not_found;
use crate::contract::{
    ApplyPatchInput, ApplyPatchOutput, ApprovalHandle, DirectoryEntry, ErrorInfo, Lifecycle,
    ListDirectoryInput, ListDirectoryOutput, Outcome, ReadFileInput, ReadFileOutput,
    RequestIdInput, WriteFileInput, WriteFileOutput, codes, tools,
};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::limits;

/// The protected payload of a write request.
#[derive(Debug, Serialize, Deserialize)]
pub struct WritePayload {
    pub path: String,
    pub content: String,
    pub create_parents: bool,
    #[serde(default)]
    pub expected_hash: Option<String>,
    /// SHA-256 of the file at submission (`None`: it did not exist).
    #[serde(default)]
    pub observed_sha256: Option<String>,
    pub content_sha256: String,
    pub bytes: u64,
}

/// The protected payload of a patch request.
#[derive(Debug, Serialize, Deserialize)]
pub struct PatchPayload {
    pub path: String,
    pub patch: String,
    #[serde(default)]
    pub expected_hash: Option<String>,
    /// SHA-256 of the file at submission.
    pub observed_sha256: String,
    pub bytes_before: u64,
    pub additions: u64,
    pub deletions: u64,
}

fn refused_read(e: JailError) -> ToolError {
    ToolError::refused(e.code(), e.to_string())
}

fn hashes_equal(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// The parent of a non-root path (`None` for a top-level name).
fn parent_of(path: &RelPath) -> Option<RelPath> {
    let comps: Vec<&str> = path.components().collect();
    if comps.len() < 2 {
        return None;
    }
    RelPath::parse(&comps[..comps.len() - 1].join("/")).ok()
}

/// A submission or resume that ended before execution.
struct Stop {
    outcome: Outcome,
    error: ErrorInfo,
}

impl Stop {
    fn new(outcome: Outcome, code: &str, message: impl Into<String>) -> Self {
        Stop {
            outcome,
            error: ErrorInfo::new(code, message, false),
        }
    }

    fn jail(e: &JailError) -> Self {
        let (outcome, error) = jail_outcome(e);
        Stop { outcome, error }
    }
}

impl Hub {
    /// `filesystem.read_file`
    pub fn read_file(&self, input: ReadFileInput) -> Result<ReadFileOutput, ToolError> {
        let path = RelPath::parse(&input.path).map_err(refused_read)?;
        let read = self
            .workspace
            .read_file(&path, limits::MAX_READ_FILE_BYTES)
            .map_err(refused_read)?;
        let content = String::from_utf8(read.bytes)
            .map_err(|_| ToolError::refused(codes::NOT_UTF8, "file is not UTF-8 text"))?;
        Ok(ReadFileOutput {
            path: path.display().to_string(),
            size: read.size,
            sha256: read.sha256,
            content,
        })
    }

    /// `filesystem.list_directory`
    pub fn list_directory(
        &self,
        input: ListDirectoryInput,
    ) -> Result<ListDirectoryOutput, ToolError> {
        let path = match input.path.as_deref() {
            None => RelPath::root(),
            Some(p) => RelPath::parse(p).map_err(refused_read)?,
        };
        let entries = self.workspace.list_dir(&path).map_err(refused_read)?;
        if entries.len() > limits::MAX_DIRECTORY_ENTRIES {
            return Err(ToolError::refused(
                "TOO_MANY_ENTRIES",
                format!(
                    "directory has {} entries, more than the limit of {}",
                    entries.len(),
                    limits::MAX_DIRECTORY_ENTRIES
                ),
            ));
        }
        Ok(ListDirectoryOutput {
            path: path.display().to_string(),
            entries: entries
                .into_iter()
                .map(|e| DirectoryEntry {
                    name: e.name,
                    kind: match e.kind {
                        EntryKind::File => "file",
                        EntryKind::Dir => "directory",
                        EntryKind::Symlink => "symlink",
                        EntryKind::Other => "other",
                    }
                    .to_string(),
                    size: e.size,
                })
                .collect(),
        })
    }

    // -----------------------------------------------------------------------------------------
    // write_file
    // -----------------------------------------------------------------------------------------

    /// `filesystem.write_file`: validate, then APPROVAL_REQUIRED.
    pub fn write_file(&self, input: WriteFileInput) -> Result<WriteFileOutput, ToolError> {
        let tool = tools::WRITE_FILE;
        let trace_id = self.new_trace_id()?;
        let create_parents = input.create_parents.unwrap_or(false);
        let checked = self.check_write(&input, create_parents);
        let (path, observed) = match checked {
            Ok(v) => v,
            Err((shown, stop)) => {
                self.audit_stop(tool, &trace_id, None, &stop, json!({"path": shown}));
                return Ok(WriteFileOutput::new(
                    Lifecycle::failed(stop.outcome, &trace_id, stop.error),
                    shown,
                ));
            }
        };
        let bytes = input.content.len() as u64;
        let payload = WritePayload {
            path: path.as_str().to_string(),
            content_sha256: sha256_hex(input.content.as_bytes()),
            content: input.content,
            create_parents,
            expected_hash: input.expected_hash,
            observed_sha256: observed.clone(),
            bytes,
        };
        let payload = serde_json::to_value(&payload)
            .map_err(|e| ToolError::internal(format!("payload: {e}")))?;
        let shown = path.display().to_string();
        let (lifecycle, record) = self.submit(tool, Operation::WriteFile, payload, &trace_id)?;
        let mut out = WriteFileOutput::new(lifecycle, shown.clone());
        out.previous_hash = observed.clone();
        if let Some(record) = record {
            self.audit(
                AuditEvent::new("approval.requested", tool, &trace_id)
                    .request_id(&record.request_id)
                    .outcome(Outcome::ApprovalRequired.as_str())
                    .details(json!({
                        "path": shown,
                        "bytes": bytes,
                        "create_parents": create_parents,
                        "previous_hash": observed,
                    })),
            );
        }
        Ok(out)
    }

    /// Path, size, type and `expected_hash` checks of a write; returns the path and the hash
    /// the file has now.
    fn check_write(
        &self,
        input: &WriteFileInput,
        create_parents: bool,
    ) -> Result<(RelPath, Option<String>), (String, Stop)> {
        let path = RelPath::parse(&input.path).map_err(|e| (input.path.clone(), Stop::jail(&e)))?;
        let shown = path.display().to_string();
        if path.is_root() {
            return Err((
                shown,
                Stop::new(
                    Outcome::Refused,
                    "NOT_A_FILE",
                    "the workspace root is not a file",
                ),
            ));
        }
        if input.content.len() as u64 > limits::MAX_WRITE_FILE_BYTES {
            return Err((
                shown,
                Stop::new(
                    Outcome::Refused,
                    codes::CONTENT_TOO_LARGE,
                    format!(
                        "content is {} bytes, more than the limit of {}",
                        input.content.len(),
                        limits::MAX_WRITE_FILE_BYTES
                    ),
                ),
            ));
        }
        let observed = self
            .workspace
            .current_sha256(&path)
            .map_err(|e| (shown.clone(), Stop::jail(&e)))?;
        if observed.is_none()
            && let Some(parent) = parent_of(&path)
        {
            match self.workspace.stat(&parent) {
                Ok(info) if info.kind == EntryKind::Dir => {}
                Ok(info) if info.kind == EntryKind::Symlink => {
                    return Err((
                        shown,
                        Stop::jail(&JailError::SymlinkRefused {
                            path: parent.display().to_string(),
                        }),
                    ));
                }
                Ok(_) => {
                    return Err((
                        shown,
                        Stop::jail(&JailError::NotADirectory {
                            path: parent.display().to_string(),
                        }),
                    ));
                }
                Err(JailError::NotFound { .. }) if create_parents => {}
                Err(JailError::NotFound { .. }) => {
                    return Err((
                        shown,
                        Stop::new(
                            Outcome::Refused,
                            codes::PARENT_NOT_FOUND,
                            format!(
                                "parent directory {} does not exist (set create_parents)",
                                parent.display()
                            ),
                        ),
                    ));
                }
                Err(e) => return Err((shown, Stop::jail(&e))),
            }
        }
        if let Some(expected) = &input.expected_hash
            && observed
                .as_deref()
                .is_none_or(|h| !hashes_equal(h, expected))
        {
            return Err((
                shown,
                Stop::new(
                    Outcome::Conflict,
                    codes::HASH_MISMATCH,
                    match &observed {
                        Some(_) => "expected_hash does not match the file's current SHA-256",
                        None => "expected_hash was given but the file does not exist",
                    },
                ),
            ));
        }
        Ok((path, observed))
    }

    /// `filesystem.write_file_approved`
    pub fn write_file_approved(&self, input: RequestIdInput) -> Result<WriteFileOutput, ToolError> {
        let tool = tools::WRITE_FILE_APPROVED;
        let record = match self.consume(tool, &input.request_id, Operation::WriteFile)? {
            Ok(record) => record,
            Err(lifecycle) => {
                let path = self.payload_path(&input.request_id);
                return Ok(WriteFileOutput::new(*lifecycle, path));
            }
        };
        let trace_id = record.trace_id.clone();
        let request_id = record.request_id.clone();
        let consumed = consumed_lifecycle(&record);
        let payload: WritePayload = match serde_json::from_value(record.payload.clone()) {
            Ok(p) => p,
            Err(_) => {
                let stop = Stop::new(
                    Outcome::Failed,
                    codes::PAYLOAD_INVALID,
                    "stored request is malformed",
                );
                self.audit_stop(tool, &trace_id, Some(&request_id), &stop, json!({}));
                return Ok(WriteFileOutput::new(fail(consumed, stop), ""));
            }
        };
        let path = match RelPath::parse(&payload.path) {
            Ok(p) => p,
            Err(e) => {
                let stop = Stop::jail(&e);
                self.audit_stop(
                    tool,
                    &trace_id,
                    Some(&request_id),
                    &stop,
                    json!({"path": payload.path}),
                );
                return Ok(WriteFileOutput::new(fail(consumed, stop), payload.path));
            }
        };
        let shown = path.display().to_string();
        let expect = Precondition::matching(payload.observed_sha256.as_deref());
        let result = self.workspace.write_file_checked(
            &path,
            payload.content.as_bytes(),
            payload.create_parents,
            &expect,
        );
        match result {
            Ok(w) => {
                let mut lifecycle = consumed;
                lifecycle.outcome = Outcome::Succeeded;
                lifecycle.executed = true;
                lifecycle.message = Some(format!("wrote {} bytes to {shown}", w.bytes_written));
                self.audit(
                    AuditEvent::new("operation.executed", tool, &trace_id)
                        .request_id(&request_id)
                        .outcome(Outcome::Succeeded.as_str())
                        .details(json!({
                            "path": shown,
                            "bytes_written": w.bytes_written,
                            "created": w.created,
                            "previous_hash": w.previous_sha256,
                            "new_hash": w.new_sha256,
                        })),
                );
                let mut out = WriteFileOutput::new(lifecycle, shown);
                out.bytes_written = Some(w.bytes_written);
                out.created = Some(w.created);
                out.previous_hash = w.previous_sha256;
                out.new_hash = Some(w.new_sha256);
                Ok(out)
            }
            Err(e) => {
                let stop = match e {
                    JailError::Conflict { .. } => Stop::new(
                        Outcome::Conflict,
                        codes::FILE_CHANGED,
                        "the file changed after the request was submitted; nothing was written",
                    ),
                    e => Stop::jail(&e),
                };
                self.audit_stop(
                    tool,
                    &trace_id,
                    Some(&request_id),
                    &stop,
                    json!({"path": shown}),
                );
                let mut out = WriteFileOutput::new(fail(consumed, stop), shown);
                out.previous_hash = payload.observed_sha256;
                Ok(out)
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // apply_patch
    // -----------------------------------------------------------------------------------------

    /// `filesystem.apply_patch`: validate (the patch must apply now), then APPROVAL_REQUIRED.
    pub fn apply_patch(&self, input: ApplyPatchInput) -> Result<ApplyPatchOutput, ToolError> {
        let tool = tools::APPLY_PATCH;
        let trace_id = self.new_trace_id()?;
        let checked = self.check_patch(&input);
        let (path, payload) = match checked {
            Ok(v) => v,
            Err((shown, stop)) => {
                self.audit_stop(tool, &trace_id, None, &stop, json!({"path": shown}));
                return Ok(ApplyPatchOutput::new(
                    Lifecycle::failed(stop.outcome, &trace_id, stop.error),
                    shown,
                ));
            }
        };
        let shown = path.display().to_string();
        let (additions, deletions, bytes_before) =
            (payload.additions, payload.deletions, payload.bytes_before);
        let observed = payload.observed_sha256.clone();
        let payload = serde_json::to_value(&payload)
            .map_err(|e| ToolError::internal(format!("payload: {e}")))?;
        let (lifecycle, record) = self.submit(tool, Operation::ApplyPatch, payload, &trace_id)?;
        let mut out = ApplyPatchOutput::new(lifecycle, shown.clone());
        out.previous_hash = Some(observed.clone());
        out.bytes_before = Some(bytes_before);
        out.additions = Some(additions);
        out.deletions = Some(deletions);
        if let Some(record) = record {
            self.audit(
                AuditEvent::new("approval.requested", tool, &trace_id)
                    .request_id(&record.request_id)
                    .outcome(Outcome::ApprovalRequired.as_str())
                    .details(json!({
                        "path": shown,
                        "additions": additions,
                        "deletions": deletions,
                        "previous_hash": observed,
                    })),
            );
        }
        Ok(out)
    }

    fn check_patch(
        &self,
        input: &ApplyPatchInput,
    ) -> Result<(RelPath, PatchPayload), (String, Stop)> {
        let path = RelPath::parse(&input.path).map_err(|e| (input.path.clone(), Stop::jail(&e)))?;
        let shown = path.display().to_string();
        if input.patch.len() as u64 > limits::MAX_PATCH_BYTES {
            return Err((
                shown,
                Stop::new(
                    Outcome::Refused,
                    codes::PATCH_TOO_LARGE,
                    format!(
                        "patch is larger than the limit of {} bytes",
                        limits::MAX_PATCH_BYTES
                    ),
                ),
            ));
        }
        let read = self
            .workspace
            .read_file(&path, limits::MAX_READ_FILE_BYTES)
            .map_err(|e| (shown.clone(), Stop::jail(&e)))?;
        if let Some(expected) = &input.expected_hash
            && !hashes_equal(&read.sha256, expected)
        {
            return Err((
                shown,
                Stop::new(
                    Outcome::Conflict,
                    codes::HASH_MISMATCH,
                    "expected_hash does not match the file's current SHA-256",
                ),
            ));
        }
        let original = String::from_utf8(read.bytes).map_err(|_| {
            (
                shown.clone(),
                Stop::new(Outcome::Refused, codes::NOT_UTF8, "file is not UTF-8 text"),
            )
        })?;
        let result = apply_unified_diff(&original, &input.patch)
            .map_err(|e| (shown.clone(), patch_stop(&e)))?;
        Ok((
            path.clone(),
            PatchPayload {
                path: path.as_str().to_string(),
                patch: input.patch.clone(),
                expected_hash: input.expected_hash.clone(),
                observed_sha256: read.sha256,
                bytes_before: read.size,
                additions: result.additions as u64,
                deletions: result.deletions as u64,
            },
        ))
    }

    /// `filesystem.apply_patch_approved`
    pub fn apply_patch_approved(
        &self,
        input: RequestIdInput,
    ) -> Result<ApplyPatchOutput, ToolError> {
        let tool = tools::APPLY_PATCH_APPROVED;
        let record = match self.consume(tool, &input.request_id, Operation::ApplyPatch)? {
            Ok(record) => record,
            Err(lifecycle) => {
                let path = self.payload_path(&input.request_id);
                return Ok(ApplyPatchOutput::new(*lifecycle, path));
            }
        };
        let trace_id = record.trace_id.clone();
        let request_id = record.request_id.clone();
        let consumed = consumed_lifecycle(&record);
        let payload: PatchPayload = match serde_json::from_value(record.payload.clone()) {
            Ok(p) => p,
            Err(_) => {
                let stop = Stop::new(
                    Outcome::Failed,
                    codes::PAYLOAD_INVALID,
                    "stored request is malformed",
                );
                self.audit_stop(tool, &trace_id, Some(&request_id), &stop, json!({}));
                return Ok(ApplyPatchOutput::new(fail(consumed, stop), ""));
            }
        };
        let stop_with = |stop: Stop, shown: &str| {
            self.audit_stop(
                tool,
                &trace_id,
                Some(&request_id),
                &stop,
                json!({"path": shown}),
            );
            let mut out = ApplyPatchOutput::new(fail(consumed.clone(), stop), shown);
            out.previous_hash = Some(payload.observed_sha256.clone());
            out
        };
        let path = match RelPath::parse(&payload.path) {
            Ok(p) => p,
            Err(e) => return Ok(stop_with(Stop::jail(&e), &payload.path)),
        };
        let shown = path.display().to_string();
        let read = match self.workspace.read_file(&path, limits::MAX_READ_FILE_BYTES) {
            Ok(r) => r,
            Err(JailError::NotFound { .. }) => {
                return Ok(stop_with(file_changed(), &shown));
            }
            Err(e) => return Ok(stop_with(Stop::jail(&e), &shown)),
        };
        if !hashes_equal(&read.sha256, &payload.observed_sha256) {
            return Ok(stop_with(file_changed(), &shown));
        }
        let Ok(original) = String::from_utf8(read.bytes) else {
            return Ok(stop_with(file_changed(), &shown));
        };
        let patched = match apply_unified_diff(&original, &payload.patch) {
            Ok(p) => p,
            Err(e) => return Ok(stop_with(patch_stop(&e), &shown)),
        };
        let result = self.workspace.write_file_checked(
            &path,
            patched.text.as_bytes(),
            false,
            &Precondition::Sha256(payload.observed_sha256.clone()),
        );
        match result {
            Ok(w) => {
                let mut lifecycle = consumed.clone();
                lifecycle.outcome = Outcome::Succeeded;
                lifecycle.executed = true;
                lifecycle.message = Some(format!(
                    "patched {shown}: +{} -{}",
                    patched.additions, patched.deletions
                ));
                self.audit(
                    AuditEvent::new("operation.executed", tool, &trace_id)
                        .request_id(&request_id)
                        .outcome(Outcome::Succeeded.as_str())
                        .details(json!({
                            "path": shown,
                            "additions": patched.additions,
                            "deletions": patched.deletions,
                            "previous_hash": w.previous_sha256,
                            "new_hash": w.new_sha256,
                        })),
                );
                let mut out = ApplyPatchOutput::new(lifecycle, shown);
                out.changed = Some(patched.text != original);
                out.additions = Some(patched.additions as u64);
                out.deletions = Some(patched.deletions as u64);
                out.bytes_before = Some(read.size);
                out.bytes_after = Some(w.bytes_written);
                out.previous_hash = w.previous_sha256;
                out.new_hash = Some(w.new_sha256);
                Ok(out)
            }
            Err(JailError::Conflict { .. }) => Ok(stop_with(file_changed(), &shown)),
            Err(e) => Ok(stop_with(Stop::jail(&e), &shown)),
        }
    }

    // -----------------------------------------------------------------------------------------
    // shared lifecycle steps
    // -----------------------------------------------------------------------------------------

    /// Creates the approval request. A full store is a structured REFUSED (nothing changed).
    pub(crate) fn submit(
        &self,
        tool: &str,
        operation: Operation,
        payload: Value,
        trace_id: &str,
    ) -> Result<(Lifecycle, Option<ApprovalRecord>), ToolError> {
        match self.approvals.create(operation, payload, trace_id) {
            Ok(record) => {
                let view = record.view(self.approvals.now());
                let mut lifecycle = Lifecycle::new(Outcome::ApprovalRequired, trace_id)
                    .with_approval(ApprovalHandle::from_view(&view));
                lifecycle.message = Some(format!(
                    "Approval required: a human administrator must run `mcp-toolhub-admin approve {}`; \
                     poll toolhub.request_status, then call {} with only the request_id.",
                    record.request_id,
                    operation.resume_tool()
                ));
                Ok((lifecycle, Some(record)))
            }
            Err(e @ mcp_safety_core::approvals::StoreError::Full { .. }) => {
                let stop = Stop::new(Outcome::Refused, e.code(), e.to_string());
                self.audit_stop(tool, trace_id, None, &stop, json!({}));
                Ok((Lifecycle::failed(stop.outcome, trace_id, stop.error), None))
            }
            Err(e) => Err(ToolError::internal(format!("approval store: {e}"))),
        }
    }

    /// Consumes `request_id` for `operation`, atomically and before any validation. A request
    /// that is not consumable gives its structured outcome (`Err(lifecycle)`).
    pub(crate) fn consume(
        &self,
        tool: &str,
        request_id: &str,
        operation: Operation,
    ) -> Result<Result<ApprovalRecord, Box<Lifecycle>>, ToolError> {
        if !super::plausible_request_id(request_id) {
            return Ok(Err(Box::new(self.not_found_lifecycle(tool, request_id)?)));
        }
        match self.approvals.consume(request_id, operation) {
            Ok(record) => {
                self.audit(
                    AuditEvent::new("approval.consumed", tool, &record.trace_id)
                        .request_id(&record.request_id)
                        .outcome("CONSUMED"),
                );
                Ok(Ok(record))
            }
            Err(ConsumeError::NotFound) => {
                Ok(Err(Box::new(self.not_found_lifecycle(tool, request_id)?)))
            }
            Err(ConsumeError::Store(e)) => Err(ToolError::internal(format!("approval store: {e}"))),
            Err(e) => {
                let Some(view) = e.view() else {
                    return Err(ToolError::internal(format!("approval store: {e}")));
                };
                let handle = ApprovalHandle::from_view(view);
                let (outcome, error) = match &e {
                    ConsumeError::OperationMismatch(_) => (
                        Outcome::Refused,
                        Some(ErrorInfo::new(
                            codes::OPERATION_MISMATCH,
                            format!("this request is resumed with {}", view.resume_tool),
                            false,
                        )),
                    ),
                    _ => (Outcome::for_status(view.status.into()), None),
                };
                let mut lifecycle = Lifecycle::new(outcome, &view.trace_id).with_approval(handle);
                lifecycle.message = Some(e.to_string());
                lifecycle.error = error;
                self.audit_outcome(
                    AuditEvent::new("resume.refused", tool, &view.trace_id)
                        .request_id(&view.request_id),
                    outcome,
                    lifecycle.error.as_ref(),
                    json!({}),
                );
                Ok(Err(Box::new(lifecycle)))
            }
        }
    }

    fn not_found_lifecycle(&self, tool: &str, request_id: &str) -> Result<Lifecycle, ToolError> {
        let trace_id = self.new_trace_id()?;
        let mut lifecycle = Lifecycle::failed(Outcome::Refused, &trace_id, not_found());
        lifecycle.request_id = Some(request_id.to_string());
        self.audit_outcome(
            AuditEvent::new("resume.refused", tool, &trace_id),
            Outcome::Refused,
            lifecycle.error.as_ref(),
            json!({}),
        );
        Ok(lifecycle)
    }

    /// The path of an existing request of this workspace ("" when unknown).
    fn payload_path(&self, request_id: &str) -> String {
        if !super::plausible_request_id(request_id) {
            return String::new();
        }
        self.approvals
            .get_full(request_id)
            .ok()
            .flatten()
            .and_then(|r| {
                r.payload
                    .get("path")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .unwrap_or_default()
    }

    fn audit_stop(
        &self,
        tool: &str,
        trace_id: &str,
        request_id: Option<&str>,
        stop: &Stop,
        details: Value,
    ) {
        let event = match stop.outcome {
            Outcome::Conflict => "operation.conflict",
            Outcome::Refused => "operation.refused",
            _ => "operation.failed",
        };
        let mut ev = AuditEvent::new(event, tool, trace_id);
        if let Some(r) = request_id {
            ev = ev.request_id(r);
        }
        self.audit_outcome(ev, stop.outcome, Some(&stop.error), details);
    }
}

/// The lifecycle after a successful consume (status CONSUMED, original trace id).
fn consumed_lifecycle(record: &ApprovalRecord) -> Lifecycle {
    let view = record.view(record.consumed_at.unwrap_or(record.created_at));
    Lifecycle::new(Outcome::Failed, &record.trace_id)
        .with_approval(ApprovalHandle::from_view(&view))
}

fn fail(mut lifecycle: Lifecycle, stop: Stop) -> Lifecycle {
    lifecycle.outcome = stop.outcome;
    lifecycle.executed = false;
    lifecycle.message = Some(stop.error.message.clone());
    lifecycle.error = Some(stop.error);
    lifecycle
}

fn file_changed() -> Stop {
    Stop::new(
        Outcome::Conflict,
        codes::FILE_CHANGED,
        "the file changed after the request was submitted; nothing was written",
    )
}

fn patch_stop(e: &PatchError) -> Stop {
    let outcome = match e {
        PatchError::DoesNotApply { .. } => Outcome::Conflict,
        _ => Outcome::Refused,
    };
    Stop::new(outcome, e.code(), e.to_string())
}
