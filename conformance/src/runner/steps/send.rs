//! `send`: raw bytes on the server's stdin, for malformed and out-of-order input.

use super::{StepFailure, session_failure};
use crate::model::Step;
use crate::model::steps::send::Send;
use crate::runner::context::Run;
use serde_json::Value;
use std::time::Duration;

/// Runs one `send` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    send: &Send,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let mut bytes = run.expand_str(&send.text)?.into_bytes();
    if send.newline {
        bytes.push(b'\n');
    }
    s.send_raw(&bytes).await.map_err(session_failure)?;
    Ok(None)
}
