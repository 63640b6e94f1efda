//! `kill`: sends the server a signal.

use super::StepFailure;
use crate::model::steps::kill::Kill;
use crate::model::{KillSignal, Step};
use crate::runner::context::Run;
use nix::sys::signal::Signal;
use serde_json::Value;
use std::time::Duration;

/// Runs one `kill` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    kill: &Kill,
    _: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    s.signal(match kill.signal {
        KillSignal::Term => Signal::SIGTERM,
        KillSignal::Kill => Signal::SIGKILL,
        KillSignal::Int => Signal::SIGINT,
        KillSignal::Hup => Signal::SIGHUP,
    });
    Ok(None)
}
