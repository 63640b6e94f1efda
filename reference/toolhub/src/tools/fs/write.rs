//! `filesystem.write_file` (submission) and `filesystem.write_file_approved` (resume).

use mcp_safety_core::approvals::Operation;
use mcp_safety_core::audit::AuditEvent;
use mcp_safety_core::digest::sha256_hex;
use mcp_safety_core::jail::{JailError, Precondition, RelPath};
use serde_json::json;

use super::hashes_equal;
use super::payload::WritePayload;
use crate::contract::{
    Lifecycle, Outcome, RequestIdInput, WriteFileInput, WriteFileOutput, codes, tools,
};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::limits;
use crate::tools::refusal::{Stop, file_changed};

/// The parent of a non-root path (`None` for a top-level name).
fn parent_of(path: &RelPath) -> Option<RelPath> {
    let comps: Vec<&str> = path.components().collect();
    if comps.len() < 2 {
        return None;
    }
    RelPath::parse(&comps[..comps.len() - 1].join("/")).ok()
}

impl Hub {
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
        let shown = path.display().to_string();
        let details = json!({
            "path": shown,
            "bytes": bytes,
            "create_parents": create_parents,
            "previous_hash": observed,
        });
        let lifecycle = self.submit(tool, Operation::WriteFile, &payload, &trace_id, details)?;
        let mut out = WriteFileOutput::new(lifecycle, shown);
        out.previous_hash = observed;
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
        // `current_sha256` has walked the parents without following a link: a file or a
        // symlink among them was refused there. What is left to know is whether they exist.
        // (The approved write walks them again, so a parent swapped since is refused then.)
        if observed.is_none()
            && let Some(parent) = parent_of(&path)
        {
            match self.workspace.stat(&parent) {
                Ok(_) => {}
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
        let resumed =
            match self.resume::<WritePayload>(tool, &input.request_id, Operation::WriteFile)? {
                Ok(r) => r,
                Err((lifecycle, path)) => return Ok(WriteFileOutput::new(lifecycle, path)),
            };
        let payload = &resumed.payload;
        let path = match RelPath::parse(&payload.path) {
            Ok(p) => p,
            Err(e) => {
                let details = json!({"path": payload.path});
                let lifecycle = resumed.stop(self, tool, Stop::jail(&e), details);
                return Ok(WriteFileOutput::new(lifecycle, payload.path.clone()));
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
                let mut lifecycle = resumed.consumed.clone();
                lifecycle.outcome = Outcome::Succeeded;
                lifecycle.executed = true;
                lifecycle.message = Some(format!("wrote {} bytes to {shown}", w.bytes_written));
                self.audit(
                    AuditEvent::new("operation.executed", tool, &resumed.trace_id)
                        .request_id(&resumed.request_id)
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
                    JailError::Conflict { .. } => file_changed(),
                    e => Stop::jail(&e),
                };
                let lifecycle = resumed.stop(self, tool, stop, json!({"path": shown}));
                let mut out = WriteFileOutput::new(lifecycle, shown);
                out.previous_hash = payload.observed_sha256.clone();
                Ok(out)
            }
        }
    }
}
