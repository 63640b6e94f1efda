//! The application state behind the MCP tools and the admin CLI: the frozen workspace, the
//! bound state root, the approval store and the audit log (all from `mcp-safety-core`).
//!
//! Tool bodies are synchronous functions on [`Hub`] (see `tools/`); the rmcp layer runs them
//! on the blocking pool because they take file locks and fsync.

use std::sync::Arc;
use std::time::Duration;

use mcp_safety_core::approvals::ApprovalStore;
use mcp_safety_core::audit::{AuditEvent, AuditLog};
use mcp_safety_core::clock::{SharedClock, SystemClock};
use mcp_safety_core::jail::Workspace;
use mcp_safety_core::state::StateRoot;

use crate::config::Config;
use crate::error::ToolError;

/// Shared state of one server or admin process.
#[derive(Debug)]
pub struct Hub {
    pub workspace: Workspace,
    pub state: StateRoot,
    pub approvals: ApprovalStore,
    pub audit_log: AuditLog,
    pub approval_ttl: Duration,
}

impl Hub {
    /// A hub on the system clock.
    pub fn new(config: Config) -> Arc<Hub> {
        Self::with_clock(config, SystemClock::shared())
    }

    /// A hub on `clock` (tests inject a manual clock).
    pub fn with_clock(config: Config, clock: SharedClock) -> Arc<Hub> {
        let approvals = ApprovalStore::new(&config.state, clock.clone(), config.approval_ttl);
        let audit_log = AuditLog::new(&config.state, clock);
        Arc::new(Hub {
            workspace: config.workspace,
            state: config.state,
            approvals,
            audit_log,
            approval_ttl: config.approval_ttl,
        })
    }

    /// Appends an audit event. Never fails the caller: problems go to the tracing log only.
    pub fn audit(&self, event: AuditEvent) {
        if let Err(e) = self.audit_log.append(&event) {
            tracing::warn!(code = e.code(), "audit append failed: {e}");
        }
    }

    /// A new lifecycle trace id.
    pub fn new_trace_id(&self) -> Result<String, ToolError> {
        mcp_safety_core::ids::new_trace_id()
            .map_err(|e| ToolError::internal(format!("cannot generate an id: {e}")))
    }
}
