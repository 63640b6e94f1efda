//! Executing one step: act, observe, match `expect`, `save` captures.

// A failure carries the expected and actual JSON for the report; it is built once per failed
// scenario, so its size on the error path does not matter.
#![allow(clippy::result_large_err)]

use super::context::{Pending, Run, lock};
use super::observe::{call_observation, exit_observation, response_observation};
use crate::matcher::{Mismatch, matches};
use crate::model::{Step, StepKind};
use crate::process::{Invocation, is_alive, resolve_program, run_to_end};
use crate::report::FailureKind;
use crate::sandbox::describe_path;
use crate::session::{Session, SessionError};
use futures::future::BoxFuture;
use nix::sys::signal::Signal;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Default interval between attempts of `poll` and `within`.
const DEFAULT_EVERY: Duration = Duration::from_millis(50);

/// Why a step failed.
#[derive(Debug, Clone)]
pub struct StepFailure {
    pub kind: FailureKind,
    pub message: String,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
    /// The innermost step that failed, when it is not the top-level one (inside `parallel`).
    pub step: Option<Box<Step>>,
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
    fn mismatch(m: &Mismatch, what: &str) -> Self {
        StepFailure {
            kind: FailureKind::Assertion,
            message: format!("{what} did not match at {}: {}", m.path, m.reason),
            expected: Some(m.expected.clone()),
            actual: m.actual.clone(),
            step: None,
        }
    }
}

impl From<crate::interp::InterpError> for StepFailure {
    fn from(e: crate::interp::InterpError) -> Self {
        StepFailure::error(e.to_string())
    }
}

/// Session errors are the server's doing (no answer, exited), except a failed spawn.
fn session_failure(e: SessionError) -> StepFailure {
    match e {
        SessionError::Spawn { .. } => StepFailure::error(e.to_string()),
        other => StepFailure::assertion(other.to_string()),
    }
}

impl Run<'_> {
    /// Runs one step with its deadline, then checks `expect` and applies `save`.
    pub fn step<'s>(&'s self, step: &'s Step) -> BoxFuture<'s, Result<(), StepFailure>> {
        Box::pin(async move {
            let timeout = step.timeout.unwrap_or(self.step_timeout);
            let budget = timeout.max(step.within.unwrap_or_default()) + Duration::from_secs(2);
            let observed = tokio::time::timeout(budget, self.act(step, timeout))
                .await
                .unwrap_or_else(|_| {
                    Err(StepFailure::assertion(format!(
                        "the step did not finish within {budget:?}"
                    )))
                });
            let observed = observed.map_err(|mut f| {
                if f.step.is_none() {
                    f.step = Some(Box::new(step.clone()));
                }
                f
            })?;
            if let Some(obs) = observed {
                if let Some(pattern) = &step.expect {
                    let pattern = self.expand(pattern)?;
                    if let Err(m) = matches(&pattern, &obs) {
                        let mut f = StepFailure::mismatch(&m, "the observation");
                        f.step = Some(Box::new(step.clone()));
                        return Err(f);
                    }
                }
                self.save(step, &obs)?;
            }
            Ok(())
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

    async fn session(&self, on: Option<&str>) -> Result<(usize, Arc<Session>), StepFailure> {
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

    /// Does what the step says and returns what it observed (if it observes anything).
    async fn act(&self, step: &Step, timeout: Duration) -> Result<Option<Value>, StepFailure> {
        let on = step.on.as_deref();
        match &step.kind {
            StepKind::Initialize(spec) => {
                let (_, s) = self.session(on).await?;
                let version = match &spec.protocol_version {
                    Some(v) => self.expand_str(v)?,
                    None => self
                        .target
                        .target
                        .protocol_versions
                        .first()
                        .cloned()
                        .unwrap_or_else(|| "2025-11-25".to_string()),
                };
                let params = json!({
                    "protocolVersion": version,
                    "capabilities": self.expand(spec.capabilities.as_ref().unwrap_or(&json!({})))?,
                    "clientInfo": match &spec.client_info {
                        Some(c) => self.expand(c)?,
                        None => json!({"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")}),
                    },
                });
                let resp = s
                    .request("initialize", Some(params), timeout)
                    .await
                    .map_err(session_failure)?;
                let obs = response_observation(&resp);
                let ok = obs.get("result").is_some();
                if ok && spec.initialized.unwrap_or(true) {
                    s.notify("notifications/initialized", None)
                        .await
                        .map_err(session_failure)?;
                }
                if !ok && step.expect.is_none() {
                    let mut f = StepFailure::assertion("initialize was answered with an error");
                    f.actual = Some(obs);
                    return Err(f);
                }
                Ok(Some(obs))
            }
            StepKind::ListTools => {
                let (_, s) = self.session(on).await?;
                self.list_tools(&s, timeout, step.expect.is_none())
                    .await
                    .map(Some)
            }
            StepKind::Call {
                name,
                args,
                meta,
                progress,
                nowait,
            } => {
                let (index, s) = self.session(on).await?;
                let mut params = json!({"name": self.expand_str(name)?});
                params["arguments"] = match args {
                    Some(a) => self.expand(a)?,
                    None => json!({}),
                };
                let mut meta_value = match meta {
                    Some(m) => self.expand(m)?,
                    None => Value::Null,
                };
                let token = progress.then(|| json!(format!("progress-{}", step.position.line)));
                if let Some(t) = &token {
                    if !meta_value.is_object() {
                        meta_value = json!({});
                    }
                    meta_value["progressToken"] = t.clone();
                }
                if !meta_value.is_null() {
                    params["_meta"] = meta_value;
                }
                let id = s
                    .send_request("tools/call", Some(params))
                    .await
                    .map_err(session_failure)?;
                if let Some(handle) = nowait {
                    self.remember(handle, index, id, true, token);
                    return Ok(None);
                }
                let resp = s.response(&id, timeout).await.map_err(session_failure)?;
                let progress = token.map(|t| s.progress_for(&t)).unwrap_or_default();
                Ok(Some(call_observation(&resp, progress)))
            }
            StepKind::Await(handle) => {
                let pending = lock(&self.pending).remove(handle).ok_or_else(|| {
                    StepFailure::error(format!(
                        "await {handle}: no request was sent with nowait: {handle}"
                    ))
                })?;
                let s = self.servers[pending.server]
                    .current()
                    .await
                    .ok_or_else(|| {
                        StepFailure::assertion(format!(
                            "await {handle}: the server is no longer running"
                        ))
                    })?;
                let resp = s
                    .response(&pending.id, timeout)
                    .await
                    .map_err(session_failure)?;
                Ok(Some(if pending.is_call {
                    let progress = pending
                        .progress_token
                        .map(|t| s.progress_for(&t))
                        .unwrap_or_default();
                    call_observation(&resp, progress)
                } else {
                    response_observation(&resp)
                }))
            }
            StepKind::Poll { name, args, until } => {
                let (_, s) = self.session(on).await?;
                let params = json!({
                    "name": self.expand_str(name)?,
                    "arguments": match args { Some(a) => self.expand(a)?, None => json!({}) },
                });
                let until = self.expand(until)?;
                let within = step.within.unwrap_or(timeout);
                let every = step.every.unwrap_or(Duration::from_millis(100));
                let deadline = Instant::now() + within;
                loop {
                    let resp = s
                        .request("tools/call", Some(params.clone()), timeout)
                        .await
                        .map_err(session_failure)?;
                    let obs = call_observation(&resp, Vec::new());
                    match matches(&until, &obs) {
                        Ok(()) => return Ok(Some(obs)),
                        Err(m) if Instant::now() + every > deadline => {
                            let mut f = StepFailure::mismatch(&m, "`until`");
                            f.message =
                                format!("still not matched after {within:?}: {}", f.message);
                            return Err(f);
                        }
                        Err(_) => tokio::time::sleep(every).await,
                    }
                }
            }
            StepKind::Request {
                method,
                params,
                meta,
                nowait,
            } => {
                let (index, s) = self.session(on).await?;
                let mut p = match params {
                    Some(p) => Some(self.expand(p)?),
                    None => None,
                };
                if let Some(m) = meta {
                    let m = self.expand(m)?;
                    let obj = p.get_or_insert_with(|| json!({}));
                    if obj.is_object() {
                        obj["_meta"] = m;
                    }
                }
                let id = s
                    .send_request(&self.expand_str(method)?, p)
                    .await
                    .map_err(session_failure)?;
                if let Some(handle) = nowait {
                    self.remember(handle, index, id, false, None);
                    return Ok(None);
                }
                let resp = s.response(&id, timeout).await.map_err(session_failure)?;
                Ok(Some(response_observation(&resp)))
            }
            StepKind::Notify { method, params } => {
                let (_, s) = self.session(on).await?;
                let p = match params {
                    Some(p) => Some(self.expand(p)?),
                    None => None,
                };
                s.notify(&self.expand_str(method)?, p)
                    .await
                    .map_err(session_failure)?;
                Ok(None)
            }
            StepKind::Send { text, newline } => {
                let (_, s) = self.session(on).await?;
                let mut bytes = self.expand_str(text)?.into_bytes();
                if *newline {
                    bytes.push(b'\n');
                }
                s.send_raw(&bytes).await.map_err(session_failure)?;
                Ok(None)
            }
            StepKind::ExpectMessage(pattern) => {
                let (_, s) = self.session(on).await?;
                let pattern = self.expand(pattern)?;
                let within = step.within.unwrap_or(timeout);
                match s
                    .take_message(within, |m| matches(&pattern, m).is_ok())
                    .await
                {
                    Ok(m) => Ok(Some(m)),
                    Err(_) => {
                        let mut f = StepFailure::assertion(format!(
                            "no message matching the pattern arrived within {within:?}"
                        ));
                        f.expected = Some(pattern);
                        f.actual = Some(Value::Array(s.unsolicited()));
                        Err(f)
                    }
                }
            }
            StepKind::NoMessage(pattern) => {
                let (_, s) = self.session(on).await?;
                let pattern = self.expand(pattern)?;
                let seen = s
                    .unsolicited()
                    .into_iter()
                    .find(|m| matches(&pattern, m).is_ok());
                let seen = match (seen, step.within) {
                    (Some(m), _) => Some(m),
                    (None, Some(within)) => s
                        .take_message(within, |m| matches(&pattern, m).is_ok())
                        .await
                        .ok(),
                    (None, None) => None,
                };
                match seen {
                    None => Ok(None),
                    Some(m) => {
                        let mut f = StepFailure::assertion("a message arrived that must not have");
                        f.expected = Some(json!({"$not": pattern}));
                        f.actual = Some(m);
                        Err(f)
                    }
                }
            }
            StepKind::Admin { args, stdin, env } => {
                let index = self.server_index(on);
                let slot = &self.servers[index];
                let base = slot.admin.clone().ok_or_else(|| {
                    StepFailure::error(format!(
                        "target {} has no admin command",
                        self.target.target.name
                    ))
                })?;
                let mut inv = base;
                for a in args {
                    inv.args.push(self.expand_str(a)?);
                }
                for (k, v) in env {
                    inv.env.insert(k.clone(), self.expand_str(v)?);
                }
                let stdin = match stdin {
                    Some(t) => Some(self.expand_str(t)?),
                    None => None,
                };
                self.run_program(&inv, stdin.as_deref(), timeout)
                    .await
                    .map(Some)
            }
            StepKind::Exec { spec, stdin } => {
                let index = self.server_index(on);
                let program = self.expand_str(&spec.program)?;
                let exe = resolve_program(
                    &program,
                    &self.servers[index].workspace(),
                    &self.target.bin_dirs(),
                )
                .ok_or_else(|| {
                    StepFailure::error(format!("exec: cannot find program {program:?}"))
                })?;
                let mut inv = Invocation {
                    program: exe,
                    args: spec
                        .args
                        .iter()
                        .map(|a| self.expand_str(a))
                        .collect::<Result<_, _>>()?,
                    env: Default::default(),
                    env_remove: Vec::new(),
                    env_clear: false,
                    cwd: match &spec.cwd {
                        Some(c) => PathBuf::from(self.expand_str(c)?),
                        None => self.servers[index].workspace(),
                    },
                };
                for (k, v) in &spec.env {
                    inv.env.insert(k.clone(), self.expand_str(v)?);
                }
                let stdin = match stdin {
                    Some(t) => Some(self.expand_str(t)?),
                    None => None,
                };
                self.observe_until(step, timeout, || {
                    let inv = inv.clone();
                    let stdin = stdin.clone();
                    async move { self.run_program(&inv, stdin.as_deref(), timeout).await }
                })
                .await
            }
            StepKind::File(path) => {
                let path = self.resolve_path(on, path)?;
                self.observe_until(step, timeout, || {
                    let path = path.clone();
                    async move { Ok(describe_path(&path)) }
                })
                .await
            }
            StepKind::Processes(pidfile) => {
                let path = self.resolve_path(on, pidfile)?;
                lock(&self.pidfiles).push(path.clone());
                self.observe_until(step, timeout, || {
                    let path = path.clone();
                    async move {
                        let pids = read_pids(&path);
                        let alive: Vec<i32> = pids.iter().copied().filter(|p| is_alive(*p)).collect();
                        Ok(json!({"recorded": pids.len(), "alive": alive.len(), "alive_pids": alive}))
                    }
                })
                .await
            }
            StepKind::Stderr => {
                let (_, s) = self.session(on).await?;
                self.observe_until(step, timeout, || {
                    let s = s.clone();
                    async move {
                        let text = s.stderr_text();
                        let lines: Vec<&str> = text.lines().collect();
                        Ok(json!({"text": text, "lines": lines}))
                    }
                })
                .await
            }
            StepKind::Stdout => {
                let (_, s) = self.session(on).await?;
                self.observe_until(step, timeout, || {
                    let s = s.clone();
                    async move { Ok(s.stdout_observation()) }
                })
                .await
            }
            StepKind::Start => {
                let index = self.server_index(on);
                let running = self.servers[index].current().await;
                if running.is_some_and(|s| s.exit_status().is_none()) {
                    return Err(StepFailure::error(format!(
                        "server {} is already running",
                        self.servers[index].name
                    )));
                }
                self.start_server(index).await?;
                Ok(None)
            }
            StepKind::Restart => {
                let index = self.server_index(on);
                if let Some(old) = self.servers[index].session.write().await.take() {
                    old.shutdown(Duration::from_secs(2)).await;
                }
                self.start_server(index).await?;
                Ok(None)
            }
            StepKind::Stop | StepKind::WaitExit => {
                let (index, s) = self.session(on).await?;
                if matches!(step.kind, StepKind::Stop) {
                    s.close_stdin().await;
                }
                let within = step.within.unwrap_or(timeout);
                let status = s.wait_exit(within).await;
                let mut obs = exit_observation(status);
                obs["stdout"] = s.stdout_observation()["text"].clone();
                obs["stderr"] = json!(s.stderr_text());
                if status.is_none() {
                    s.shutdown(Duration::ZERO).await;
                }
                // The ended session stays in its slot so a failure report still has its
                // transcript; `start` replaces it.
                let _ = index;
                Ok(Some(obs))
            }
            StepKind::Kill(signal) => {
                let (_, s) = self.session(on).await?;
                let sig = match signal.as_str() {
                    "KILL" => Signal::SIGKILL,
                    "INT" => Signal::SIGINT,
                    "HUP" => Signal::SIGHUP,
                    _ => Signal::SIGTERM,
                };
                s.signal(sig);
                Ok(None)
            }
            StepKind::Parallel(steps) => {
                let results = futures::future::join_all(steps.iter().map(|s| self.step(s))).await;
                results.into_iter().collect::<Result<Vec<()>, _>>()?;
                Ok(None)
            }
            StepKind::Set(values) => {
                for (k, v) in values {
                    let value = self.expand(v)?;
                    lock(&self.vars).set(k.clone(), value);
                }
                Ok(None)
            }
        }
    }

    fn remember(
        &self,
        handle: &str,
        server: usize,
        id: Value,
        is_call: bool,
        token: Option<Value>,
    ) {
        lock(&self.vars).set(handle.to_string(), json!({"id": id.clone()}));
        lock(&self.pending).insert(
            handle.to_string(),
            Pending {
                server,
                id,
                is_call,
                progress_token: token,
            },
        );
    }

    async fn list_tools(
        &self,
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
                    last["tools"] = Value::Array(tools);
                    return Ok(last);
                }
            }
        }
        Err(StepFailure::assertion(
            "tools/list pagination did not end after 100 pages",
        ))
    }

    async fn run_program(
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
    fn resolve_path(&self, on: Option<&str>, path: &str) -> Result<PathBuf, StepFailure> {
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
    async fn observe_until<F, Fut>(
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
            if done || Instant::now() + every > deadline {
                return Ok(Some(obs));
            }
            tokio::time::sleep(every).await;
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
