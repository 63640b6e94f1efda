//! Executing one step: act, observe, match `expect`, `save` captures.
//!
//! What each kind does is in the module of its name (`call.rs`, `admin.rs`...): a `run`
//! function from the kind's typed step (defined by the language crate's module of the same
//! name) to its observation. The list of kinds is the language's
//! (`mcp_conformance_lang::for_each_step_kind!`), so the modules and the dispatch below
//! follow it: a new kind is a module here and one there, plus one line in that list.

// A failure carries the expected and actual JSON for the report; it is built once per failed
// scenario, so its size on the error path does not matter.
#![allow(clippy::result_large_err)]

use super::context::{Pending, Run, lock};
use super::observe::response_observation;
use crate::matcher::{Mismatch, Pattern, matches};
use crate::model::{Level, Step, StepKind};
use crate::process::{Invocation, run_to_end};
use crate::report::FailureKind;
use crate::session::{Session, SessionError, Violation};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Default interval between attempts of `poll` and `within`.
pub(super) const DEFAULT_EVERY: Duration = Duration::from_millis(50);

/// Why a step failed.
#[derive(Debug, Clone)]
pub struct StepFailure {
    pub kind: FailureKind,
    pub message: String,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
    /// The innermost step that failed, when it is not the top-level one (inside `parallel`).
    pub step: Option<Box<Step>>,
    /// The level the failure is judged at whatever the step's: a server's message that
    /// breaks JSON-RPC 2.0 is a `must` failure even in a `should` step.
    pub level: Option<Level>,
}

impl StepFailure {
    /// The server did not do what the scenario expects.
    pub fn assertion(message: impl Into<String>) -> Self {
        StepFailure {
            kind: FailureKind::Assertion,
            message: message.into(),
            expected: None,
            actual: None,
            step: None,
            level: None,
        }
    }

    /// A message from the server that breaks JSON-RPC 2.0: a `must` failure that says what
    /// is wrong and quotes the rule, with the message as what came back.
    pub fn violation(v: &Violation) -> Self {
        StepFailure {
            actual: Some(v.message.clone()),
            level: Some(Level::Must),
            ..Self::assertion(v.report())
        }
    }

    /// The scenario could not be carried out as written.
    pub fn error(message: impl Into<String>) -> Self {
        StepFailure {
            kind: FailureKind::Error,
            ..Self::assertion(message)
        }
    }

    /// A pattern that did not match: the message names the path and the reason; expected
    /// and actual are the parts at that path, so the report's diff stays focused (the
    /// transcript shows the whole message).
    pub(super) fn mismatch(m: &Mismatch, what: &str) -> Self {
        StepFailure {
            kind: FailureKind::Assertion,
            message: format!("{what} did not match at {}: {}", m.path, m.reason),
            expected: Some(m.expected.clone()),
            actual: m.actual.clone(),
            step: None,
            level: None,
        }
    }
}

impl From<crate::interp::InterpError> for StepFailure {
    fn from(e: crate::interp::InterpError) -> Self {
        StepFailure::error(e.to_string())
    }
}

/// Session errors are the server's doing (no answer, exited), except a failed spawn.
pub(super) fn session_failure(e: SessionError) -> StepFailure {
    match e {
        SessionError::Spawn { .. } => StepFailure::error(e.to_string()),
        SessionError::Violation(v) => StepFailure::violation(&v),
        other => StepFailure::assertion(other.to_string()),
    }
}

mod rounds;

macro_rules! define_runners {
    ($( $module:ident => $Variant:ident ),* $(,)?) => {
        $( mod $module; )*

        impl Run<'_> {
            /// Does what the step says and returns what it observed (if it observes
            /// anything).
            pub(super) async fn act(
                &self,
                step: &Step,
                timeout: Duration,
            ) -> Result<Option<Value>, StepFailure> {
                match &step.kind {
                    $( StepKind::$Variant(kind) => $module::run(self, step, kind, timeout).await, )*
                }
            }
        }
    };
}

mcp_conformance_lang::for_each_step_kind!(define_runners);

impl Run<'_> {
    /// The session of server `on` (default: the first), which must be running.
    pub(super) async fn session(
        &self,
        on: Option<&str>,
    ) -> Result<(usize, Arc<Session>), StepFailure> {
        let index = self.server_index(on);
        let slot = &self.servers[index];
        match slot.current().await {
            Some(s) => Ok((index, s)),
            None => Err(StepFailure::error(format!(
                "server {} is not running (declare it with start: true or add a start step)",
                slot.name
            ))),
        }
    }

    /// Runs one step with its deadline, then checks `expect` and applies `save`; returns
    /// what it observed (for the run's `StepFinished` event).
    pub fn step<'s>(&'s self, step: &'s Step) -> BoxFuture<'s, Result<Option<Value>, StepFailure>> {
        Box::pin(async move {
            let timeout = step.timeout.unwrap_or(self.step_timeout);
            let observed = if matches!(step.kind, StepKind::Repeat(_) | StepKind::Parallel(_))
                && step.timeout.is_none()
            {
                // A block has no deadline of its own: each inner step has one (and the
                // scenario's deadline bounds the whole).
                self.act(step, timeout).await
            } else {
                let budget = timeout.max(step.within.unwrap_or_default()) + Duration::from_secs(2);
                tokio::time::timeout(budget, self.act(step, timeout))
                    .await
                    .unwrap_or_else(|_| {
                        Err(StepFailure::assertion(format!(
                            "the step did not finish within {budget:?}"
                        )))
                    })
            };
            let observed = observed.map_err(|mut f| {
                if f.step.is_none() {
                    f.step = Some(Box::new(step.clone()));
                }
                f
            })?;
            if let Some(obs) = &observed {
                if let Some(pattern) = &step.expect {
                    let pattern = self.expand(pattern)?;
                    if let Err(m) = matches(&pattern, obs) {
                        let mut f = StepFailure::mismatch(&m, "the observation");
                        f.step = Some(Box::new(step.clone()));
                        return Err(f);
                    }
                }
                self.save(step, obs)?;
            }
            Ok(observed)
        })
    }

    fn save(&self, step: &Step, obs: &Value) -> Result<(), StepFailure> {
        for (name, path) in &step.save {
            let value = crate::interp::lookup_path(obs, path).ok_or_else(|| {
                let mut f = StepFailure::assertion(format!(
                    "save {name}: the observation has nothing at `{path}`"
                ));
                f.actual = Some(obs.clone());
                f.step = Some(Box::new(step.clone()));
                f
            })?;
            lock(&self.vars).set(name.clone(), value.clone());
        }
        Ok(())
    }

    pub(super) fn remember(
        &self,
        handle: &str,
        session: Arc<Session>,
        id: Value,
        is_call: bool,
        token: Option<Value>,
    ) {
        lock(&self.vars).set(handle.to_string(), json!({"id": id.clone()}));
        lock(&self.pending).insert(
            handle.to_string(),
            Pending {
                session,
                id,
                is_call,
                progress_token: token,
            },
        );
    }

    /// Every page of `tools/list` from server `index`; the tools' declared output schemas
    /// are kept for the `call` steps that follow.
    pub(super) async fn list_tools(
        &self,
        index: usize,
        s: &Session,
        timeout: Duration,
        strict: bool,
    ) -> Result<Value, StepFailure> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut last;
        for _ in 0..100 {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let resp = s
                .request("tools/list", params, timeout)
                .await
                .map_err(session_failure)?;
            last = response_observation(&resp);
            let Some(result) = last.get("result") else {
                if strict {
                    let mut f = StepFailure::assertion("tools/list was answered with an error");
                    f.actual = Some(last);
                    return Err(f);
                }
                return Ok(last);
            };
            if let Some(page) = result.get("tools").and_then(Value::as_array) {
                tools.extend(page.iter().cloned());
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => {
                    let mut declared = lock(&self.declared_outputs);
                    declared.retain(|(server, _), _| *server != index);
                    for tool in &tools {
                        if let (Some(name), Some(schema)) = (
                            tool.get("name").and_then(Value::as_str),
                            tool.get("outputSchema"),
                        ) {
                            declared.insert((index, name.to_string()), schema.clone());
                        }
                    }
                    drop(declared);
                    last["tools"] = Value::Array(tools);
                    return Ok(last);
                }
            }
        }
        Err(StepFailure::assertion(
            "tools/list pagination did not end after 100 pages",
        ))
    }

    pub(super) async fn run_program(
        &self,
        inv: &Invocation,
        stdin: Option<&str>,
        timeout: Duration,
    ) -> Result<Value, StepFailure> {
        let out = run_to_end(inv, stdin, timeout)
            .await
            .map_err(|e| StepFailure::error(e.to_string()))?;
        Ok(out.observation())
    }

    /// A path as a step names it: absolute, or relative to the step's server's workspace.
    pub(super) fn resolve_path(
        &self,
        on: Option<&str>,
        path: &str,
    ) -> Result<PathBuf, StepFailure> {
        let expanded = self.expand_str(path)?;
        let p = Path::new(&expanded);
        Ok(if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.servers[self.server_index(on)].workspace().join(p)
        })
    }

    /// Observes once, or — with `within` — again every `every` until `expect` matches or the
    /// deadline passes (the last observation is returned for the final check).
    pub(super) async fn observe_until<F, Fut>(
        &self,
        step: &Step,
        _timeout: Duration,
        mut observe: F,
    ) -> Result<Option<Value>, StepFailure>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<Value, StepFailure>>,
    {
        let Some(within) = step.within else {
            return observe().await.map(Some);
        };
        let pattern = match &step.expect {
            Some(p) => Some(self.expand(p)?),
            None => None,
        };
        let every = step.every.unwrap_or(DEFAULT_EVERY);
        let deadline = Instant::now() + within;
        loop {
            let obs = observe().await?;
            let done = pattern.as_ref().is_none_or(|p| matches(p, &obs).is_ok());
            // The last attempt happens at the deadline, never one interval before it.
            if done || Instant::now() >= deadline {
                return Ok(Some(obs));
            }
            tokio::time::sleep(every.min(deadline - Instant::now())).await;
        }
    }
}

/// The pids listed in a pid file (one per line; unreadable or malformed lines are skipped).
pub fn read_pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// `pattern` (already expanded) compiled once for every message or round it is matched
/// against, not once per message. The load-time check already accepted it with its `${...}`
/// unexpanded (a regex or a `$len` must be literal there), so this is not expected to fail;
/// if it does, the error is the scenario's, not the server's.
fn compiled(pattern: &Value, what: &str) -> Result<Pattern, StepFailure> {
    Pattern::compile(pattern).map_err(|e| {
        StepFailure::error(format!(
            "the {what} pattern is invalid once its variables are expanded: {e}"
        ))
    })
}
