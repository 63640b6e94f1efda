//! What becomes of an upstream's answer to a call: handed to the task waiting for it (startup
//! steps, calls rmcp routed), or relayed to the client at once as a line (calls the hub's
//! front took, see [`crate::front`]); and where the call's progress goes.
//!
//! A relayed call has no task of its own: the session's reader thread turns the upstream's
//! response into the client's line ([`crate::outward`]) and writes it to stdout, so a call
//! costs no task switch and no wakeup between the upstream's answer and the client's.

use std::any::Any;
use std::sync::Arc;

use mcp_stdio_guard::LineSender;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::oneshot;

use super::wire::Head;
use crate::config::InstanceId;
use crate::outward::{self, Era};

/// Where progress of one call goes: the client's stdout and the client's own token, as the
/// client wrote it (JSON text).
#[derive(Debug, Clone)]
pub struct ProgressRoute {
    /// The client's stdout.
    pub out: LineSender,
    /// The client's token, restored on each forwarded notification.
    pub token: Arc<str>,
}

impl ProgressRoute {
    /// Sends the upstream's progress `params` (JSON text) to the client with its token.
    pub fn forward(&self, params: &str) -> bool {
        let Ok(params) = outward::progress_params(params, &self.token) else {
            return false;
        };
        let line = outward::notification_line("notifications/progress", &params);
        self.out.send(&line)
    }
}

/// A call whose answer goes to the client as soon as the upstream gives it.
pub struct Relay {
    /// The client's request id, as the client wrote it (JSON text).
    pub client_id: Arc<str>,
    /// How the client's result is shaped.
    pub era: Era,
    /// The client's stdout.
    pub out: LineSender,
    /// The tool's original name, for the log.
    pub tool: Arc<str>,
    /// Dropped when the call ends however it ends (answered, failed, cancelled): the router's
    /// entry for the call goes with it.
    pub done: Option<Box<dyn Any + Send>>,
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relay")
            .field("client_id", &self.client_id)
            .field("tool", &self.tool)
            .finish()
    }
}

/// What waits for a response.
#[derive(Debug)]
pub enum Waiter {
    /// A task, which gets the whole response line.
    Reply(oneshot::Sender<Vec<u8>>),
    /// The client, which gets its line from the session's reader.
    Relay(Relay),
}

/// An upstream JSON-RPC error, its `data` kept as the upstream's text.
#[derive(Debug, Deserialize)]
struct UpstreamError {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<Box<RawValue>>,
}

impl Relay {
    /// The client's line for the upstream's response `head`, written to stdout.
    pub fn deliver(self, instance: &InstanceId, head: &Head<'_>) {
        let line = match (head.result, head.error) {
            (Some(result), _) => match outward::call_result(result.get(), self.era) {
                Ok(result) => outward::result_line(&self.client_id, &result),
                Err(e) => self.transport_failure(instance, &e.to_string()),
            },
            (None, Some(error)) => match serde_json::from_str::<UpstreamError>(error.get()) {
                Ok(error) => {
                    tracing::warn!(
                        target: "mcp_hub::router",
                        instance_id = %instance,
                        tool = %self.tool,
                        error = %format_args!("JSON-RPC error {}: {}", error.code, error.message),
                        "routed tool call failed at the upstream"
                    );
                    // rmcp's error codes are 32-bit: a wider one is the hub's internal error.
                    let code = i32::try_from(error.code).map_or(-32603, i64::from);
                    let data = error.data.as_deref().map(RawValue::get);
                    outward::error_line(&self.client_id, code, &error.message, data)
                }
                Err(e) => self.transport_failure(instance, &format!("invalid response: {e}")),
            },
            (None, None) => {
                self.transport_failure(instance, "invalid response: neither result nor error")
            }
        };
        let _ = self.out.send(&line);
    }

    /// Fails the call with the hub's internal error: the connection is gone, or the response
    /// could not be read (`failure` says why).
    pub fn fail(self, instance: &InstanceId, failure: &str) {
        let line = self.transport_failure(instance, failure);
        let _ = self.out.send(&line);
    }

    /// Answers the call with the error an upstream response stands for (one too long to be
    /// read, whose error the hub makes).
    pub fn reject(self, instance: &InstanceId, code: i64, message: &str, data: Option<&str>) {
        tracing::warn!(
            target: "mcp_hub::router",
            instance_id = %instance,
            tool = %self.tool,
            error = %format_args!("JSON-RPC error {code}: {message}"),
            "routed tool call failed at the upstream"
        );
        let line = outward::error_line(&self.client_id, code, message, data);
        let _ = self.out.send(&line);
    }

    /// The line of a call that failed at the upstream's transport or protocol layer, logged
    /// as the router logs it.
    fn transport_failure(&self, instance: &InstanceId, failure: &str) -> Vec<u8> {
        tracing::warn!(
            target: "mcp_hub::router",
            instance_id = %instance,
            tool = %self.tool,
            error = %failure,
            "routed tool call failed at the upstream transport"
        );
        outward::error_line(
            &self.client_id,
            -32603,
            &format!("upstream `{instance}` failed: {failure}"),
            None,
        )
    }
}
