//! `exec`: a program run in the sandbox (the probe, git, a script), retried `within`.

use super::StepFailure;
use crate::model::Step;
use crate::model::steps::exec::Exec;
use crate::process::{Invocation, resolve_program};
use crate::runner::context::Run;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// Runs one `exec` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    exec: &Exec,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let index = run.server_index(step.on.as_deref());
    let spec = &exec.spec;
    let program = run.expand_str(&spec.program)?;
    let exe = resolve_program(
        &program,
        &run.servers[index].workspace(),
        &run.target.bin_dirs(),
    )
    .ok_or_else(|| StepFailure::error(format!("exec: cannot find program {program:?}")))?;
    let mut inv = Invocation {
        program: exe,
        args: spec
            .args
            .iter()
            .map(|a| run.expand_str(a))
            .collect::<Result<_, _>>()?,
        env: Default::default(),
        env_remove: Vec::new(),
        env_clear: false,
        cwd: match &spec.cwd {
            Some(c) => PathBuf::from(run.expand_str(c)?),
            None => run.servers[index].workspace(),
        },
    };
    for (k, v) in &spec.env {
        inv.env.insert(k.clone(), run.expand_str(v)?);
    }
    let stdin = match &exec.stdin {
        Some(t) => Some(run.expand_str(t)?),
        None => None,
    };
    run.observe_until(step, timeout, || {
        let inv = inv.clone();
        let stdin = stdin.clone();
        async move { run.run_program(&inv, stdin.as_deref(), timeout).await }
    })
    .await
}
