//! The one attempt/outcome point every safe-mcp tool goes through, terminal and files alike.
//!
//! An attempt record (redacted arguments) is written before the tool acts and an outcome
//! record after. With `audit_fail_mode = "closed"` an unwritable attempt means nothing is done
//! (AUDIT_UNAVAILABLE); an unwritable outcome turns the answer into AUDIT_UNAVAILABLE naming
//! the real outcome. With `"open"` both are logged and the call proceeds.

use std::time::Instant;

use mcp_safety_core::clock::{Clock, SystemClock};
use mcp_safety_core::policy::Redactor;
use mcp_safety_core::trail::{AuditTrail, FailMode};
use serde_json::{Value, json};

use crate::result::{Code, OperationResult};

/// Runs `body` as the tool `action` between its attempt and outcome records. `outcome_keys`
/// names the `detail` fields copied into the outcome record (e.g. `exit_code`, `moves`);
/// output itself never goes there.
pub(crate) fn audited(
    trail: &AuditTrail,
    redactor: &Redactor,
    action: &str,
    args: &Value,
    outcome_keys: &[&str],
    body: impl FnOnce() -> OperationResult,
) -> OperationResult {
    let started = Instant::now();
    let call_id = mcp_safety_core::ids::random_hex(8).unwrap_or_else(|_| "unknown".into());
    let attempt = json!({
        "ts": SystemClock.now().to_rfc3339(), "phase": "attempt", "call_id": call_id,
        "action": action, "args": redact_json(redactor, args),
    });
    let open = trail.mode() == FailMode::Open;
    if let Err(e) = trail.record(&attempt) {
        if !open {
            tracing::error!("audit trail unwritable, refusing {action}: {e}");
            let mut r = OperationResult::refused(
                Code::AuditUnavailable,
                action,
                "the audit trail cannot be written; nothing was done (audit_fail_mode = closed)",
            );
            r.duration_ms = started.elapsed().as_millis() as u64;
            return r;
        }
        tracing::warn!("audit trail unwritable, proceeding (audit_fail_mode = open): {e}");
    }
    let mut result = body();
    result.reason = redactor.redact(&result.reason).into_owned();
    result.duration_ms = started.elapsed().as_millis() as u64;
    let mut outcome = json!({
        "ts": SystemClock.now().to_rfc3339(), "phase": "outcome", "call_id": call_id,
        "action": action, "ok": result.ok, "code": result.code.as_str(),
        "reason": result.reason, "duration_ms": result.duration_ms,
    });
    for key in outcome_keys {
        if let Some(value) = result.detail.get(*key) {
            outcome[*key] = value.clone();
        }
    }
    if let Err(e) = trail.record(&outcome) {
        if !open {
            // The action already happened; say so rather than pretend it did not.
            tracing::error!("audit trail unwritable after {action}: {e}");
            let mut r = OperationResult::refused(
                Code::AuditUnavailable,
                action,
                format!(
                    "the outcome ({}) could not be written to the audit trail",
                    result.code.as_str()
                ),
            );
            r.duration_ms = result.duration_ms;
            return r;
        }
        tracing::warn!("audit trail unwritable, proceeding (audit_fail_mode = open): {e}");
    }
    result
}

/// Every string inside `v` redacted by `r` (operator and built-in patterns).
pub(crate) fn redact_json(r: &Redactor, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(r.redact(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(|x| redact_json(r, x)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), redact_json(r, x)))
                .collect(),
        ),
        other => other.clone(),
    }
}
