//! Running one scenario: skip checks, sandbox, servers, steps under deadlines, teardown.

use super::context::{
    Leased, Run, ServerSlot, Sharing, TargetCtx, build_invocation, knob_server_args, lock,
};
use super::judge::{Judged, judge};
use super::share::Lease;
use super::steps::StepFailure;
use crate::generation::{Generation, ModernMeta};
use crate::interp::Vars;
use crate::model::{LevelPolicy, Scenario, StepKind};
use crate::report::{Failure, FailureKind, ScenarioResult, Status, StepRecord};
use crate::sandbox::{Layer, Sandbox, SandboxSpec};
use crate::session::Session;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a server has, once its scenario is over, to exit by itself after its stdin closes
/// before its process group is killed. Nothing is judged then: the grace only lets a server
/// that exits at once do so cleanly, and a slow one (an interpreter winding down) costs the
/// run no more than this.
pub const TEARDOWN_GRACE: Duration = Duration::from_millis(100);

/// Why a scenario does not apply to a target, if it does not.
pub fn skip_reason(tctx: &TargetCtx, scenario: &Scenario) -> Option<String> {
    if let Some(reason) = super::plan::generation_skip(&tctx.target, scenario) {
        return Some(reason);
    }
    if !tctx.target.claims_suite(&scenario.suite) {
        return Some(format!(
            "target {} does not claim suite {}",
            tctx.target.name, scenario.suite
        ));
    }
    let mut knobs: Vec<&String> = scenario.requires.iter().collect();
    knobs.extend(scenario.knobs.keys());
    for (_, server) in &scenario.servers {
        knobs.extend(server.knobs.keys());
    }
    let missing: Vec<&str> = knobs
        .into_iter()
        .filter(|k| {
            tctx.target.knob(k).is_none() && !(k.as_str() == "admin" && tctx.target.admin.is_some())
        })
        .map(String::as_str)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "target {} lacks knob(s): {}",
            tctx.target.name,
            missing.join(", ")
        ));
    }
    if tctx.target.admin.is_none() && uses_admin(&scenario.steps) {
        return Some(format!(
            "target {} has no operator command (the scenario has admin steps)",
            tctx.target.name
        ));
    }
    None
}

/// True when a step (at any depth) runs the operator command.
fn uses_admin(steps: &[crate::model::Step]) -> bool {
    use crate::model::StepKind;
    steps.iter().any(|s| match &s.kind {
        StepKind::Admin(_) => true,
        StepKind::Parallel(block) => uses_admin(&block.steps),
        StepKind::Repeat(block) => uses_admin(&block.steps),
        _ => false,
    })
}

/// Runs one scenario to a result; never panics on server behaviour.
pub async fn run_scenario(
    tctx: &TargetCtx,
    scenario: &Scenario,
    policy: LevelPolicy,
) -> ScenarioResult {
    run_scenario_observed(tctx, scenario, policy, &mut |_| {}).await
}

/// The result of a scenario that did not run, for the reason given.
pub fn skipped_result(scenario: &Scenario, reason: String) -> ScenarioResult {
    ScenarioResult {
        status: Status::Skipped,
        skip_reason: Some(reason),
        ..blank_result(scenario)
    }
}

/// A scenario's result before anything ran: passed, with nothing to report.
pub fn blank_result(scenario: &Scenario) -> ScenarioResult {
    ScenarioResult {
        name: scenario.name.clone(),
        file: scenario.file.clone(),
        suite: scenario.suite.clone(),
        tags: scenario.tags.clone(),
        status: Status::Passed,
        duration: Duration::ZERO,
        skip_reason: None,
        failure: None,
        baseline_expected_failure: false,
        level: scenario.level,
        warnings: Vec::new(),
        sources: scenario.sources.clone(),
    }
}

/// Runs one scenario, handing `on_step` each top-level step as it finishes (the run's
/// `StepFinished` events, `bench --scenario`'s timings).
pub async fn run_scenario_observed(
    tctx: &TargetCtx,
    scenario: &Scenario,
    policy: LevelPolicy,
    on_step: &mut (dyn FnMut(StepRecord) + Send),
) -> ScenarioResult {
    let started = Instant::now();
    if let Some(reason) = skip_reason(tctx, scenario) {
        return skipped_result(scenario, reason);
    }
    if !policy.runs(scenario.level) {
        let reason = "level beyond (a guarantee stronger than the documents): not judged; \
             --beyond, or `beyond: true` in the target file, judges it";
        return skipped_result(scenario, reason.to_string());
    }
    let pool = tctx
        .pool
        .as_ref()
        .filter(|_| super::share::shareable(scenario));
    let mut result = match pool {
        // Its steps are told once the attempt that counts is known.
        Some(pool) => {
            let mut steps = Vec::new();
            let (result, inherited) =
                attempt(tctx, scenario, policy, Some(pool), &mut |r| steps.push(r)).await;
            let whole_life = || super::share::observes_whole_life(&scenario.steps);
            if inherited
                && (result.status == Status::Failed
                    || (!result.warnings.is_empty() && whole_life()))
            {
                // Judged again on a server of its own: a failure, or a warning about what the
                // server sent in its whole life, must not rest on the scenarios before.
                attempt(tctx, scenario, policy, None, on_step).await.0
            } else {
                for record in steps {
                    on_step(record);
                }
                result
            }
        }
        None => attempt(tctx, scenario, policy, None, on_step).await.0,
    };
    result.duration = started.elapsed();
    result
}

/// Sets up and runs a scenario once, on a shared server when `pool` is given and one is
/// idle; also says whether the server was inherited.
async fn attempt(
    tctx: &TargetCtx,
    scenario: &Scenario,
    policy: LevelPolicy,
    pool: Option<&Arc<super::share::ServerPool>>,
    on_step: &mut (dyn FnMut(StepRecord) + Send),
) -> (ScenarioResult, bool) {
    let mut result = blank_result(scenario);
    let mut inherited = false;
    let outcome = match setup(tctx, scenario, pool) {
        Ok(run) => {
            let outcome = execute(&run, policy, &mut result.warnings, on_step).await;
            inherited = run.sharing.as_ref().is_some_and(Sharing::inherited);
            outcome
        }
        Err(message) => Err(Failure {
            kind: FailureKind::Error,
            level: scenario.level,
            step: None,
            position: None,
            step_label: None,
            message,
            expected: None,
            actual: None,
            transcript: Vec::new(),
            stderr_tail: Vec::new(),
        }),
    };
    match outcome {
        Ok(Ended::Judged) => {}
        Ok(Ended::Unjudged(reason)) => {
            // Not judged on this target: whatever it warned of before does not count.
            result.warnings.clear();
            result.status = Status::Skipped;
            result.skip_reason = Some(reason);
        }
        Err(failure) => {
            result.status = Status::Failed;
            result.failure = Some(failure);
        }
    }
    (result, inherited)
}

/// Creates a sandbox from `spec` with the target's default workspace seed laid under it,
/// expanding `${...}` in seeded contents with `vars` plus the sandbox's own variables, which
/// are then added to `vars`. Scenarios and `bench` prepare their sandboxes the same way.
pub fn create_sandbox(
    tctx: &TargetCtx,
    spec: &SandboxSpec,
    vars: &mut Vars,
) -> Result<Sandbox, String> {
    let mut seed = spec.clone();
    seed.workspace = spec.workspace.layered_over(&tctx.target.workspace);
    seed.state = spec.state.layered_over(&tctx.target.state);
    seed.home = spec.home.layered_over(&tctx.target.home);
    let base = vars.clone();
    let sandbox = Sandbox::create(
        &seed,
        &|text: &str, sandbox_vars: &BTreeMap<String, String>| {
            let mut v = base.clone();
            for (k, val) in sandbox_vars {
                v.set_str(k.clone(), val.clone());
            }
            v.expand_str(text).map_err(|e| e.to_string())
        },
    )
    .map_err(|e| format!("cannot prepare the sandbox: {e}"))?;
    for (k, v) in sandbox.variables() {
        vars.set_str(k, v);
    }
    Ok(sandbox)
}

/// Creates the sandbox, the variables and the (not yet started) servers.
fn setup<'a>(
    tctx: &'a TargetCtx,
    scenario: &'a Scenario,
    pool: Option<&Arc<super::share::ServerPool>>,
) -> Result<Run<'a>, String> {
    let mut vars = tctx.base_vars();
    let sandbox = create_sandbox(tctx, &scenario.sandbox, &mut vars)?;
    let file = std::path::Path::new(&scenario.file);
    // A built-in scenario's folder stays a `<built-in>/...` name: the contract step reads
    // the embedded files beside it.
    let scenario_dir = if scenario.file.starts_with(crate::builtin::PREFIX) {
        file.parent().map(std::path::Path::to_path_buf)
    } else {
        file.canonicalize()
            .ok()
            .and_then(|p| p.parent().map(std::path::Path::to_path_buf))
    }
    .unwrap_or_default();
    vars.set_str("scenario_dir", scenario_dir.display().to_string());
    for (k, v) in &scenario.vars {
        let value = vars.expand(v).map_err(|e| format!("vars.{k}: {e}"))?;
        vars.set(k.clone(), value);
    }
    let step_timeout = scenario.step_timeout.unwrap_or(tctx.target.timeouts.step.0);
    let mut servers = Vec::new();
    for (name, spec) in &scenario.servers {
        let mut bindings = vars.clone();
        for (k, v) in &spec.vars {
            let value = vars
                .expand_str(v)
                .map_err(|e| format!("servers.{name}.vars.{k}: {e}"))?;
            bindings.set_str(k.clone(), value);
        }
        let mut knobs: BTreeMap<String, Value> = scenario.knobs.clone();
        knobs.extend(spec.knobs.clone());
        let cwd = sandbox.tmp().to_path_buf();
        let mut invocation = build_invocation(
            tctx,
            &tctx.target.server,
            &bindings,
            &knobs,
            &spec.env,
            &cwd,
        )
        .map_err(|e| format!("server {name}: {e}"))?;
        if let Some(args) =
            knob_server_args(tctx, &bindings, &knobs).map_err(|e| format!("server {name}: {e}"))?
        {
            invocation.args = args;
        }
        let admin = match &tctx.target.admin {
            Some(a) => Some(
                build_invocation(tctx, a, &bindings, &knobs, &spec.env, &cwd)
                    .map_err(|e| format!("admin command for server {name}: {e}"))?,
            ),
            None => None,
        };
        servers.push(ServerSlot {
            name: name.clone(),
            bindings,
            invocation,
            admin,
            session: tokio::sync::RwLock::new(None),
        });
    }
    Ok(Run {
        target: tctx,
        scenario,
        sandbox,
        vars: Mutex::new(vars),
        servers,
        step_timeout,
        pending: Mutex::new(HashMap::new()),
        pidfiles: Mutex::new(Vec::new()),
        declared_outputs: Mutex::new(HashMap::new()),
        started_uptime: crate::process::uptime_secs(),
        started: Mutex::new(Vec::new()),
        sharing: pool.map(|p| Sharing::new(p.clone())),
    })
}

/// How a scenario that did not fail ended.
enum Ended {
    /// Its checks were judged (some may have warned).
    Judged,
    /// A precondition (`skip_unless`) did not hold: not judged, for this reason.
    Unjudged(String),
}

/// Starts the servers, runs the steps under the scenario deadline, and always tears down.
/// Failed checks of level `should` go to `warnings` instead of failing the scenario (see
/// [`judge`] for when the scenario goes on after one). A message that broke JSON-RPC 2.0
/// fails it once the steps are done (`jsonrpc.rs`).
async fn execute(
    run: &Run<'_>,
    policy: LevelPolicy,
    warnings: &mut Vec<Failure>,
    on_step: &mut (dyn FnMut(StepRecord) + Send),
) -> Result<Ended, Failure> {
    let deadline = run
        .scenario
        .timeout
        .unwrap_or(run.target.target.timeouts.scenario.0);
    let scenario_level = run.scenario.level;
    let found = Mutex::new(Vec::new());
    let noticed = Mutex::new(None);
    // The top-level step running now, for the report of a scenario deadline (which drops the
    // body mid-step); `usize::MAX` before the first.
    let current = AtomicUsize::new(usize::MAX);
    let body = async {
        for (i, (_, spec)) in run.scenario.servers.iter().enumerate() {
            if spec.start && !(i == 0 && run.adopt_shared().await) {
                run.start_server(i).await.map_err(|e| {
                    let mut failure = run.failure_for(None, 0, e);
                    failure.level = scenario_level;
                    failure
                })?;
            }
        }
        for (index, step) in run.scenario.steps.iter().enumerate() {
            let level = step.level.unwrap_or(scenario_level);
            if !policy.runs(level) {
                continue;
            }
            let began = Instant::now();
            current.store(index, Ordering::Relaxed);
            let outcome = run.step(step).await;
            let duration = began.elapsed();
            let pid = match run.servers.first() {
                Some(slot) => slot.current().await.map(|s| s.pid()),
                None => None,
            };
            let kib = |field| pid.and_then(|p| crate::process::proc_status_kib(p, field));
            on_step(StepRecord {
                index,
                label: step.label.clone(),
                position: step.position,
                duration,
                passed: outcome.is_ok(),
                observation: outcome.as_ref().ok().cloned().flatten(),
                server_rss_kib: kib("VmRSS"),
                server_peak_rss_kib: kib("VmHWM"),
            });
            run.notice_violation(index, &mut lock(&noticed));
            if let Err(e) = outcome {
                let pinned = e.level;
                let mut failure = run.failure_for(Some(step), index, e);
                failure.level = pinned.unwrap_or(level);
                match judge(failure, Some(step), policy, &mut lock(&found)) {
                    Judged::Continue => {}
                    Judged::Stop => return Ok(Ended::Judged),
                    Judged::Skip(reason) => return Ok(Ended::Unjudged(reason)),
                    Judged::Fail(failure) => return Err(*failure),
                }
            }
        }
        Ok(Ended::Judged)
    };
    let outcome = match tokio::time::timeout(deadline, body).await {
        // A broken message fails the scenario even when a precondition left it unjudged:
        // that verdict rests on JSON-RPC 2.0, not on the scenario's own steps.
        Ok(Ok(ended)) => match lock(&noticed).take() {
            Some((index, v)) => Err(run.violation_failure(index, &v)),
            None => Ok(ended),
        },
        Ok(Err(failure)) => Err(failure),
        Err(_) => {
            let index = Some(current.load(Ordering::Relaxed)).filter(|i| *i != usize::MAX);
            let step = index.and_then(|i| run.scenario.steps.get(i));
            let mut failure = run.failure_for(
                step,
                index.unwrap_or(0),
                StepFailure::assertion(format!(
                    "the scenario did not finish within its deadline of {deadline:?}"
                )),
            );
            failure.level = step.and_then(|s| s.level).unwrap_or(scenario_level);
            match judge(failure, None, policy, &mut lock(&found)) {
                Judged::Fail(failure) => Err(*failure),
                Judged::Continue | Judged::Stop | Judged::Skip(_) => Ok(Ended::Judged),
            }
        }
    };
    // Warnings are the server's answers, not its state: they do not keep it from others.
    let clean = outcome.is_ok();
    warnings.append(&mut lock(&found));
    run.teardown(clean).await;
    outcome
}

impl Run<'_> {
    /// Starts (or restarts after a stop) the server at `index`.
    pub async fn start_server(&self, index: usize) -> Result<Arc<Session>, StepFailure> {
        let slot = &self.servers[index];
        let session =
            Session::spawn(&slot.invocation).map_err(|e| StepFailure::error(e.to_string()))?;
        if self.scenario.pass == Some(Generation::Modern) {
            session.set_modern(Some(ModernMeta::default()));
        }
        let session = Arc::new(session);
        lock(&self.started).push(session.findings());
        *slot.session.write().await = Some(session.clone());
        Ok(session)
    }

    /// Builds the report's failure from a step failure, with the transcript and stderr of
    /// the server the step talked to.
    pub fn failure_for(
        &self,
        step: Option<&crate::model::Step>,
        index: usize,
        f: StepFailure,
    ) -> Failure {
        let server = self.server_index(step.and_then(|s| s.on.as_deref()));
        let session = self
            .servers
            .get(server)
            .and_then(|s| s.session.try_read().ok().and_then(|g| g.clone()));
        let (transcript, stderr_tail) = match session {
            Some(s) => (s.transcript(), s.stderr_tail(20)),
            None => (Vec::new(), Vec::new()),
        };
        let (step, position, label) = match f.step.as_deref().or(step) {
            Some(s) => (Some(index), Some(s.position), Some(s.label.clone())),
            None => (None, None, None),
        };
        Failure {
            kind: f.kind,
            level: self.scenario.level,
            step,
            position,
            step_label: label,
            message: f.message,
            expected: f.expected,
            actual: f.actual,
            transcript,
            stderr_tail,
        }
    }

    /// Takes an idle shared server for the first server, if the scenario may share one and
    /// one is idle; false: start one as usual.
    async fn adopt_shared(&self) -> bool {
        let (Some(sharing), Some(slot)) = (&self.sharing, self.servers.first()) else {
            return false;
        };
        // A legacy server is handed over only to a scenario sending the `initialize` it
        // answered.
        let params = match self.scenario.steps.first().map(|s| &s.kind) {
            _ if self.scenario.pass == Some(Generation::Modern) => None,
            Some(StepKind::Initialize(spec)) => match self.legacy_params(spec) {
                Ok(params) => Some(params),
                Err(_) => return false,
            },
            _ => return false,
        };
        let lease = sharing
            .pool
            .lease(
                &slot.invocation,
                self.scenario.pass,
                params.as_ref(),
                self.step_timeout,
            )
            .await;
        let adopted = match lease {
            Lease::Adopted(adopted) => adopted,
            Lease::Start => {
                *lock(&sharing.lease) = Leased::Started;
                return false;
            }
            Lease::Own => {
                *lock(&sharing.lease) = Leased::Own;
                return false;
            }
        };
        let session = adopted.session;
        session
            .set_modern((self.scenario.pass == Some(Generation::Modern)).then(ModernMeta::default));
        session.consume_unsolicited();
        session.mark(&format!(
            "{} begins on a server that answered other scenarios",
            self.scenario.name
        ));
        *lock(&sharing.handshake) = adopted.handshake;
        *lock(&sharing.lease) = Leased::Inherited;
        lock(&self.started).push(session.findings());
        *slot.session.write().await = Some(session);
        true
    }

    /// Ends every server and every recorded process; the sandbox goes when `Run` drops. After
    /// a scenario that ended `clean`, a shared server still running goes back to the pool.
    async fn teardown(&self, clean: bool) {
        let shared = self
            .sharing
            .as_ref()
            .filter(|s| matches!(*lock(&s.lease), Leased::Inherited | Leased::Started));
        if let (Some(sharing), Some(slot)) = (shared, self.servers.first()) {
            let mut current = slot.session.write().await;
            // Running, and owing no answer (a request it never answered may hang it).
            let running = current
                .as_ref()
                .is_some_and(|s| s.exit_status().is_none() && !s.awaiting_answers());
            let handshake = lock(&sharing.handshake).clone();
            let legacy = self.scenario.pass != Some(Generation::Modern);
            match current.take() {
                Some(session)
                    if clean
                        && running
                        && (handshake.is_some() || !legacy)
                        && !super::share::sets_session_state(&self.scenario.steps) =>
                {
                    sharing.pool.give(
                        slot.invocation.clone(),
                        self.scenario.pass,
                        session,
                        handshake,
                    );
                }
                other => {
                    *current = other;
                    sharing.pool.retire(&slot.invocation, self.scenario.pass);
                }
            }
        }
        let shutdowns = self.servers.iter().map(|slot| async move {
            if let Some(s) = slot.session.write().await.take() {
                s.shutdown(TEARDOWN_GRACE).await;
            }
        });
        futures::future::join_all(shutdowns).await;
        let pidfiles = lock(&self.pidfiles).clone();
        for file in pidfiles {
            for pid in super::steps::read_pids(&file)
                .into_iter()
                .filter(|p| crate::process::started_since(*p, self.started_uptime))
            {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}
