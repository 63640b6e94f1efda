//! How a tool reports a failure that is not a domain outcome.
//!
//! Approval-gated tools report expected domain states (refusals, conflicts, approval states)
//! as structured outcomes. Tools whose Contract V1 output has no `outcome` field (reads,
//! listings, git) report a refusal as a tool error result (`isError: true`) whose text is the
//! JSON object `{"outcome": "REFUSED", "error": {code, message, retryable}}`. Input validation
//! beyond the schema and internal failures are JSON-RPC errors.

use rmcp::ErrorData;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use serde_json::json;

use crate::contract::{ErrorInfo, Outcome};

/// A failure of a tool call.
#[derive(Debug)]
pub enum ToolError {
    /// A refusal reported as a tool error result (`isError: true`).
    Refused(ErrorInfo),
    /// A JSON-RPC error (invalid parameters, internal failure).
    Protocol(ErrorData),
}

impl ToolError {
    pub fn refused(code: &str, message: impl Into<String>) -> Self {
        ToolError::Refused(ErrorInfo::new(code, message, false))
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        ToolError::Protocol(ErrorData::invalid_params(message.into(), None))
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ToolError::Protocol(ErrorData::internal_error(message.into(), None))
    }
}

impl From<ErrorData> for ToolError {
    fn from(e: ErrorData) -> Self {
        ToolError::Protocol(e)
    }
}

impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        match self {
            ToolError::Refused(error) => {
                let text = json!({"outcome": Outcome::Refused, "error": error}).to_string();
                Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into())
            }
            ToolError::Protocol(e) => Err(e),
        }
    }
}
