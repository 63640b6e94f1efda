//! `file`: what is at a path of the sandbox (kind, size, hash, content...), retried `within`.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::file::File;
use crate::runner::context::Run;
use crate::sandbox::describe_path;
use serde_json::Value;
use std::time::Duration;

/// Runs one `file` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    file: &File,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let path = run.resolve_path(step.on.as_deref(), &file.path)?;
    run.observe_until(step, timeout, || {
        let path = path.clone();
        async move { Ok(describe_path(&path)) }
    })
    .await
}
