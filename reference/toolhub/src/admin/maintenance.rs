//! The operator's maintenance of trusted state: pruning old requests, compacting the audit
//! log, and dealing with damaged records (which the server keeps refusing, fail closed).

use std::io::Write;
use std::time::Duration;

use mcp_safety_core::approvals::StoreError;
use mcp_safety_core::audit::AuditEvent;
use serde_json::json;

use super::{Failure, Hub, PROG};

/// A store error, with the operator's way out when it is a damaged record.
pub(super) fn with_way_out(e: StoreError) -> Failure {
    match e {
        StoreError::Malformed(_) => Failure(format!(
            "{e} (`{PROG} list` names the damaged requests, `{PROG} prune damaged --apply` \
             removes them, `{PROG} export --skip-damaged` saves the rest)"
        )),
        other => Failure::from(other),
    }
}

pub(super) fn prune_approvals(
    hub: &Hub,
    days: u64,
    apply: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let older_than = Duration::from_secs(days.saturating_mul(86_400));
    let report = hub.approvals.prune(older_than, apply)?;
    let io = |e: std::io::Error| Failure(format!("cannot write output: {e}"));
    if apply {
        if report.removed > 0 {
            let trace = mcp_safety_core::ids::new_trace_id().unwrap_or_default();
            hub.audit(
                AuditEvent::new("approvals.pruned", "admin", trace).details(json!({
                    "removed": report.removed,
                    "kept": report.kept,
                    "older_than_days": days,
                })),
            );
        }
        writeln!(
            out,
            "removed {} terminal approval request(s) at or before {}; kept {}",
            report.removed,
            report.cutoff.to_rfc3339(),
            report.kept
        )
        .map_err(io)?;
    } else {
        writeln!(
            out,
            "dry run: would remove {} terminal approval request(s) at or before {}; would keep {} (use --apply to remove)",
            report.eligible,
            report.cutoff.to_rfc3339(),
            report.total - report.eligible
        )
        .map_err(io)?;
    }
    for id in &report.eligible_request_ids {
        writeln!(
            out,
            "  {} {id}",
            if apply { "removed" } else { "would remove" }
        )
        .map_err(io)?;
    }
    for d in &report.damaged {
        writeln!(
            out,
            "  damaged {} (kept: `{PROG} prune damaged` deals with it)",
            d.request_id
        )
        .map_err(io)?;
    }
    Ok(())
}

pub(super) fn prune_damaged(hub: &Hub, apply: bool, out: &mut dyn Write) -> Result<(), Failure> {
    let found = hub.approvals.remove_damaged(apply)?;
    let io = |e: std::io::Error| Failure(format!("cannot write output: {e}"));
    if apply && !found.is_empty() {
        let trace = mcp_safety_core::ids::new_trace_id().unwrap_or_default();
        let ids: Vec<&str> = found.iter().map(|d| d.request_id.as_str()).collect();
        hub.audit(
            AuditEvent::new("approvals.damaged_removed", "admin", trace)
                .details(json!({"removed": found.len(), "request_ids": ids})),
        );
    }
    if found.is_empty() {
        writeln!(out, "no damaged approval requests").map_err(io)?;
    }
    for d in &found {
        writeln!(
            out,
            "  {} {}: {}",
            if apply { "removed" } else { "would remove" },
            d.request_id,
            super::terminal_safe(&d.reason)
        )
        .map_err(io)?;
    }
    if !apply && !found.is_empty() {
        writeln!(out, "dry run: use --apply to remove them").map_err(io)?;
    }
    Ok(())
}

pub(super) fn prune_audit(
    hub: &Hub,
    keep_last: usize,
    apply: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let report = hub
        .audit_log
        .compact_keep_last(keep_last, apply)
        .map_err(|e| Failure(e.to_string()))?;
    let io = |e: std::io::Error| Failure(format!("cannot write output: {e}"));
    if apply {
        writeln!(
            out,
            "kept the newest {} of {} audit event(s); removed {}",
            report.kept, report.total, report.removed
        )
        .map_err(io)?;
    } else {
        writeln!(
            out,
            "dry run: would keep the newest {} of {} audit event(s) and remove {} (use --apply to compact)",
            report.kept, report.total, report.removed
        )
        .map_err(io)?;
    }
    if report.torn_tail {
        writeln!(
            out,
            "the log ends with part of a line (an append a crash cut short, never acknowledged): \
             not an event{}",
            if apply {
                "; dropped"
            } else {
                "; dropped on --apply"
            }
        )
        .map_err(io)?;
    }
    Ok(())
}
