//! `poll`: the same call (or request) again and again until its observation matches `until`.

use super::{DEFAULT_EVERY, StepFailure, compiled, session_failure};
use crate::model::Step;
use crate::model::steps::poll::{Poll, Polled};
use crate::runner::context::Run;
use crate::runner::observe::{call_observation, response_observation};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

/// Runs one `poll` step.
pub(super) async fn run(
    run: &Run<'_>,
    step: &Step,
    poll: &Poll,
    timeout: Duration,
) -> Result<Option<Value>, StepFailure> {
    let (_, s) = run.session(step.on.as_deref()).await?;
    let (method, params, is_call) = match &poll.polled {
        Polled::Call { name, args } => {
            let params = json!({
                "name": run.expand_str(name)?,
                "arguments": match args { Some(a) => run.expand(a)?, None => json!({}) },
            });
            ("tools/call".to_owned(), Some(params), true)
        }
        Polled::Request { method, params } => {
            let params = match params {
                Some(p) => Some(run.expand(p)?),
                None => None,
            };
            (run.expand_str(method)?, params, false)
        }
    };
    let until = run.expand(&poll.until)?;
    let until_pattern = compiled(&until, "`until`")?;
    let within = step.within.unwrap_or(timeout);
    let every = step.every.unwrap_or(DEFAULT_EVERY);
    let deadline = Instant::now() + within;
    loop {
        let resp = s
            .request(&method, params.clone(), timeout)
            .await
            .map_err(session_failure)?;
        let obs = if is_call {
            call_observation(&resp, Vec::new())
        } else {
            response_observation(&resp)
        };
        match until_pattern.matches(&obs) {
            Ok(()) => return Ok(Some(obs)),
            Err(m) if Instant::now() >= deadline => {
                let mut f = StepFailure::mismatch(&m, "`until`");
                f.message = format!("still not matched after {within:?}: {}", f.message);
                return Err(f);
            }
            Err(_) => tokio::time::sleep(every.min(deadline - Instant::now())).await,
        }
    }
}
