//! `send_bytes`: raw bytes on the server's stdin, for input no text can hold.

use super::{StepFailure, session_failure};
use crate::model::Step;
use crate::model::steps::send_bytes::SendBytes;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `send_bytes` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    send: &SendBytes,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let mut bytes = send.bytes.clone();
    if send.newline {
        bytes.push(b'\n');
    }
    s.send_raw(&bytes).await.map_err(session_failure)?;
    Ok(None)
}
