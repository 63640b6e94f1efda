//! `filesystem.apply_patch` (submission) and `filesystem.apply_patch_approved` (resume).

use mcp_safety_core::approvals::Operation;
use mcp_safety_core::audit::AuditEvent;
use mcp_safety_core::jail::{JailError, Precondition, RelPath};
use mcp_safety_core::patch::{PatchError, apply_unified_diff};
use serde_json::json;

use super::hashes_equal;
use super::payload::PatchPayload;
use crate::contract::{
    ApplyPatchInput, ApplyPatchOutput, Lifecycle, Outcome, RequestIdInput, codes, tools,
};
use crate::error::ToolError;
use crate::hub::Hub;
use crate::limits;
use crate::tools::refusal::{Stop, file_changed};

impl Hub {
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
        let details = json!({
            "path": shown,
            "additions": additions,
            "deletions": deletions,
            "previous_hash": observed,
        });
        let lifecycle = self.submit(tool, Operation::ApplyPatch, &payload, &trace_id, details)?;
        let mut out = ApplyPatchOutput::new(lifecycle, shown);
        out.previous_hash = Some(observed);
        out.bytes_before = Some(bytes_before);
        out.additions = Some(additions);
        out.deletions = Some(deletions);
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
        let resumed =
            match self.resume::<PatchPayload>(tool, &input.request_id, Operation::ApplyPatch)? {
                Ok(r) => r,
                Err((lifecycle, path)) => return Ok(ApplyPatchOutput::new(lifecycle, path)),
            };
        let stop_with = |stop: Stop, shown: &str| {
            let lifecycle = resumed.stop(self, tool, stop, json!({"path": shown}));
            let mut out = ApplyPatchOutput::new(lifecycle, shown);
            out.previous_hash = Some(resumed.payload.observed_sha256.clone());
            out
        };
        let payload = &resumed.payload;
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
                let mut lifecycle = resumed.consumed.clone();
                lifecycle.outcome = Outcome::Succeeded;
                lifecycle.executed = true;
                lifecycle.message = Some(format!(
                    "patched {shown}: +{} -{}",
                    patched.additions, patched.deletions
                ));
                self.audit(
                    AuditEvent::new("operation.executed", tool, &resumed.trace_id)
                        .request_id(&resumed.request_id)
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
}

/// A patch that does not apply is a CONFLICT; any other patch error is REFUSED.
fn patch_stop(e: &PatchError) -> Stop {
    let outcome = match e {
        PatchError::DoesNotApply { .. } => Outcome::Conflict,
        _ => Outcome::Refused,
    };
    Stop::new(outcome, e.code(), e.to_string())
}
