//! `processes`: which recorded processes are still alive (nothing may outlive a server).

use super::{StepFailure, read_pids};
use crate::model::Step;
use crate::model::steps::processes::Processes;
use crate::process::is_alive;
use crate::runner::context::{Run, lock};
use serde_json::{Value, json};
use std::time::Duration;

/// Runs one `processes` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    processes: &Processes,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let path = run.resolve_path(step.on.as_deref(), &processes.pidfile)?;
    lock(&run.pidfiles).push(path.clone());
    run.observe_until(step, timeout, || {
        let path = path.clone();
        async move {
            let pids = read_pids(&path);
            let alive: Vec<i32> = pids.iter().copied().filter(|p| is_alive(*p)).collect();
            Ok(json!({"recorded": pids.len(), "alive": alive.len(), "alive_pids": alive}))
        }
    })
    .await
}
