//! What each step kind does: the actions and the observations they return.

// See steps.rs: failures are cold-path values.
#![allow(clippy::result_large_err)]

use super::context::{Run, lock};
use super::observe::{call_observation, exit_observation, response_observation};
use super::steps::{StepFailure, read_pids, session_failure};
use crate::matcher::Pattern;
use crate::model::{KillSignal, Step, StepKind};
use crate::process::{Invocation, is_alive, resolve_program};
use crate::sandbox::describe_path;
use crate::session::Session;
use nix::sys::signal::Signal;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Progress tokens unique in this process, so rounds of a `repeat` never share one.
static PROGRESS_TOKENS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Run<'_> {
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

    /// Does what the step says and returns what it observed (if it observes anything).
    pub(super) async fn act(
        &self,
        step: &Step,
        timeout: Duration,
    ) -> Result<Option<Value>, StepFailure> {
        let on = step.on.as_deref();
        match &step.kind {
            StepKind::Initialize(spec) => self.open_session(step, spec, timeout).await,
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
                let (_, s) = self.session(on).await?;
                let mut params = json!({"name": self.expand_str(name)?});
                params["arguments"] = match args {
                    Some(a) => self.expand(a)?,
                    None => json!({}),
                };
                let mut meta_value = match meta {
                    Some(m) => self.expand(m)?,
                    None => Value::Null,
                };
                let token = progress.then(|| {
                    let n = PROGRESS_TOKENS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    json!(format!("conformance-progress-{n}"))
                });
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
                    self.remember(handle, s.clone(), id, true, token);
                    return Ok(None);
                }
                let resp = s.response(&id, timeout).await.map_err(session_failure)?;
                let progress = token.map(|t| s.progress_for(&t)).unwrap_or_default();
                Ok(Some(call_observation(&resp, progress)))
            }
            StepKind::Await(handle) => {
                let pending = lock(&self.pending).get(handle).cloned().ok_or_else(|| {
                    StepFailure::error(format!(
                        "await {handle}: no request was sent with nowait: {handle}"
                    ))
                })?;
                // The session the request went to, even if the server restarted since:
                // a new session numbers its requests from 1 again.
                let s = pending.session.clone();
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
                let until_pattern = compiled(&until, "`until`")?;
                let within = step.within.unwrap_or(timeout);
                let every = step.every.unwrap_or(super::steps::DEFAULT_EVERY);
                let deadline = Instant::now() + within;
                loop {
                    let resp = s
                        .request("tools/call", Some(params.clone()), timeout)
                        .await
                        .map_err(session_failure)?;
                    let obs = call_observation(&resp, Vec::new());
                    match until_pattern.matches(&obs) {
                        Ok(()) => return Ok(Some(obs)),
                        Err(m) if Instant::now() >= deadline => {
                            let mut f = StepFailure::mismatch(&m, "`until`");
                            f.message =
                                format!("still not matched after {within:?}: {}", f.message);
                            return Err(f);
                        }
                        Err(_) => tokio::time::sleep(every.min(deadline - Instant::now())).await,
                    }
                }
            }
            StepKind::Request {
                method,
                params,
                meta,
                nowait,
            } => {
                let (_, s) = self.session(on).await?;
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
                    self.remember(handle, s.clone(), id, false, None);
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
                let compiled = compiled(&pattern, "`expect_message`")?;
                let within = step.within.unwrap_or(timeout);
                match s
                    .take_message(within, |m| compiled.matches(m).is_ok())
                    .await
                {
                    Ok(m) => Ok(Some(m)),
                    Err(_) => {
                        let mut f = StepFailure::assertion(format!(
                            "no message matching the pattern arrived within {within:?}"
                        ));
                        f.expected = Some(pattern);
                        f.actual = Some(Value::Array(s.unconsumed()));
                        Err(f)
                    }
                }
            }
            StepKind::NoResponse(handle) => {
                let pending = lock(&self.pending).get(handle).cloned().ok_or_else(|| {
                    StepFailure::error(format!(
                        "no_response {handle}: no request was sent with nowait: {handle}"
                    ))
                })?;
                let within = step.within.unwrap_or(Duration::ZERO);
                match pending.session.answered(&pending.id, within).await {
                    None => Ok(None),
                    Some(resp) => {
                        let mut f = StepFailure::assertion(format!(
                            "the request sent as {handle} was answered"
                        ));
                        f.actual = Some(resp);
                        Err(f)
                    }
                }
            }
            StepKind::NoMessage(pattern) => {
                let (_, s) = self.session(on).await?;
                let pattern = self.expand(pattern)?;
                let compiled = compiled(&pattern, "`no_message`")?;
                // Unsolicited messages only: responses to our own requests are checked with
                // `no_response`.
                let within = step.within.unwrap_or(Duration::ZERO);
                let seen = s
                    .find_any_message(within, |m| compiled.matches(m).is_ok())
                    .await;
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
                if status.is_some() {
                    // What it wrote before exiting is still in the pipes: read it all (a
                    // descendant holding them open is cut off after a second).
                    s.wait_streams_closed(Duration::from_secs(1)).await;
                }
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
                let sig = match signal {
                    KillSignal::Term => Signal::SIGTERM,
                    KillSignal::Kill => Signal::SIGKILL,
                    KillSignal::Int => Signal::SIGINT,
                    KillSignal::Hup => Signal::SIGHUP,
                };
                s.signal(sig);
                Ok(None)
            }
            StepKind::Parallel(steps) => {
                let results = futures::future::join_all(steps.iter().map(|s| self.step(s))).await;
                results.into_iter().collect::<Result<Vec<()>, _>>()?;
                Ok(None)
            }
            StepKind::Repeat { times, var, steps } => {
                for round in 1..=*times {
                    lock(&self.vars).set(var.clone(), json!(round));
                    for inner in steps {
                        self.step(inner).await?;
                    }
                }
                Ok(None)
            }
            StepKind::Contract(file) => {
                let (_, s) = self.session(on).await?;
                let listed = self.list_tools(&s, timeout, true).await?;
                let path = self.expand_str(file)?;
                let base = lock(&self.vars)
                    .get("scenario_dir")
                    .and_then(Value::as_str)
                    .map(PathBuf::from)
                    .unwrap_or_default();
                let surface =
                    super::contract::load_surface(&base.join(path)).map_err(StepFailure::error)?;
                let obs = super::contract::compare(&surface, &listed["tools"]);
                if step.expect.is_none() && !super::contract::is_clean(&obs) {
                    let mut f =
                        StepFailure::assertion("tools/list does not match the contract surface");
                    f.actual = Some(obs);
                    return Err(f);
                }
                Ok(Some(obs))
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
