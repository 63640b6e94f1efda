//! Servers shared by scenarios that only ask and read answers.
//!
//! Starting a server is most of what a scenario costs on a runtime that imports a framework
//! first (CPython with an SDK spends about a second of CPU), and `check` runs a hundred
//! scenarios. A scenario that talks to one server only through requests, tool calls and
//! listings, and checks nothing the server's earlier life could change (its stdout as a
//! whole, messages it must not send, its exit), is judged the same on a server that already
//! answered others: so `check` hands such scenarios a running server of the same command and
//! generation when one is idle. Nothing else changes: each scenario still has its own
//! sandbox, variables and verdict. What keeps sharing from changing a verdict:
//!
//! - [`shareable`] decides from the scenario's shape: one server; `initialize` only as the
//!   first step (a legacy scenario must open with it); besides, only `request`, `call`,
//!   `list_tools`, `send`, `send_bytes`, `expect_message`, `no_message`, `no_response`,
//!   `stdout`, `exec`, `set`, `await` and the `notify` below (inside `repeat` and
//!   `parallel` blocks too); a `nowait` request still unanswered at the end keeps the server
//!   from going back.
//!   `stdout` and `no_message` observe the process's whole life, so what the server did for
//!   earlier scenarios can only make them fail, never pass; `expect_message` takes only what
//!   arrives after the server was handed over (the rest is marked consumed then). Left out:
//!   `stderr` (what the server wrote before would count for a pattern that asks for it),
//!   `notify` but of `notifications/cancelled` (a notification may change what the server
//!   does next; cancelling one of the scenario's own requests does not), lifecycle steps;
//! - a scenario tagged [`FRESH_SERVER`] (it judges a server's first contact) always gets a
//!   server of its own;
//! - a server goes back to the pool only after a scenario that did not fail (a warning is
//!   about an answer, not the server's state), while it still runs and owes no answer to a
//!   request, and only when the scenario asked nothing that sets the session's state for
//!   what follows ([`sets_session_state`]: a log level, a subscription);
//! - a scenario that fails on a server it inherited is run again on a fresh one, and so is
//!   one that warns there and observes the server's whole life ([`observes_whole_life`]:
//!   `no_message`, `stdout`); that run is its verdict, so no finding ever rests on what an
//!   earlier scenario left behind.
//!
//! A legacy server is handed over initialized: the handshake an inheriting scenario asks
//! for is the one this server already answered (the same request), so its `initialize` step
//! is judged on that answer rather than sending a second `initialize`, which the
//! specification does not allow on one connection.

use crate::generation::Generation;
use crate::model::{OpenMode, Scenario, StepKind};
use crate::process::Invocation;
use crate::session::Session;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The tag of a scenario that judges a server's first contact (the first message it ever
/// reads), which a shared server has had already.
pub const FRESH_SERVER: &str = "fresh-server";

/// A running server waiting for its next scenario.
struct Idle {
    invocation: Invocation,
    pass: Option<Generation>,
    session: Arc<Session>,
    /// The legacy handshake when it was made: the `initialize` params sent, and the
    /// observation of its answer.
    handshake: Option<(Value, Value)>,
}

/// How many servers of one command and generation scenarios share at most: each start costs
/// a runtime's whole import, so a scenario waits for one of these to come back rather than
/// start another.
pub const SHARED_SERVERS: usize = 2;

/// The shared servers of one run: the idle ones, and how many of each command and generation
/// are running (idle or busy).
#[derive(Default)]
pub struct ServerPool {
    state: Mutex<PoolState>,
    changed: tokio::sync::Notify,
}

#[derive(Default)]
struct PoolState {
    idle: Vec<Idle>,
    live: Vec<(Invocation, Option<Generation>, usize)>,
}

impl PoolState {
    fn live(&mut self, invocation: &Invocation, pass: Option<Generation>) -> &mut usize {
        let at = match self
            .live
            .iter()
            .position(|(i, p, _)| *p == pass && i == invocation)
        {
            Some(at) => at,
            None => {
                self.live.push((invocation.clone(), pass, 0));
                self.live.len() - 1
            }
        };
        &mut self.live[at].2
    }
}

impl std::fmt::Debug for ServerPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerPool")
            .field("idle", &self.lock().idle.len())
            .finish()
    }
}

/// A server taken from the pool, with the handshake it already made.
pub struct Adopted {
    pub session: Arc<Session>,
    pub handshake: Option<(Value, Value)>,
}

/// What the pool gives a scenario that may share a server.
pub enum Lease {
    /// A running server that answered other scenarios.
    Adopted(Adopted),
    /// Room for one more shared server: start it, then give it back or retire it.
    Start,
    /// No room came within the patience given: start a server of its own, not shared.
    Own,
}

impl ServerPool {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A server for a scenario: an idle one started with exactly this invocation for this
    /// generation that (legacy) answered an `initialize` with exactly these `params`, else
    /// room to start one (an idle one answering other params makes room), else, after
    /// waiting up to `patience` for either, a server of its own.
    pub async fn lease(
        &self,
        invocation: &Invocation,
        pass: Option<Generation>,
        params: Option<&Value>,
        patience: Duration,
    ) -> Lease {
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(lease) = self.try_lease(invocation, pass, params) {
                return lease;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return Lease::Own;
            }
        }
    }

    fn try_lease(
        &self,
        invocation: &Invocation,
        pass: Option<Generation>,
        params: Option<&Value>,
    ) -> Option<Lease> {
        let mut state = self.lock();
        let same = |i: &Idle| i.pass == pass && i.invocation == *invocation;
        // One that exited while idle frees its room (dropping it kills its process group).
        let (dead, idle): (Vec<Idle>, Vec<Idle>) = std::mem::take(&mut state.idle)
            .into_iter()
            .partition(|i| i.session.exit_status().is_some());
        state.idle = idle;
        for gone in &dead {
            let live = state.live(&gone.invocation, gone.pass);
            *live = live.saturating_sub(1);
        }
        if let Some(at) = state
            .idle
            .iter()
            .position(|i| same(i) && i.handshake.as_ref().map(|(sent, _)| sent) == params)
        {
            let Idle {
                session, handshake, ..
            } = state.idle.swap_remove(at);
            return Some(Lease::Adopted(Adopted { session, handshake }));
        }
        let live = state.live(invocation, pass);
        if *live < SHARED_SERVERS {
            *live += 1;
            return Some(Lease::Start);
        }
        // Its room goes to this scenario: the server is dropped, its process group killed.
        let other = state.idle.iter().position(same)?;
        drop(state.idle.swap_remove(other));
        Some(Lease::Start)
    }

    /// Gives a server back after a scenario that ended cleanly.
    pub fn give(
        &self,
        invocation: Invocation,
        pass: Option<Generation>,
        session: Arc<Session>,
        handshake: Option<(Value, Value)>,
    ) {
        self.lock().idle.push(Idle {
            invocation,
            pass,
            session,
            handshake,
        });
        self.changed.notify_waiters();
    }

    /// Frees the room of a shared server that is not given back (its scenario did not end
    /// cleanly, or it exited).
    pub fn retire(&self, invocation: &Invocation, pass: Option<Generation>) {
        {
            let mut state = self.lock();
            let live = state.live(invocation, pass);
            *live = live.saturating_sub(1);
        }
        self.changed.notify_waiters();
    }

    /// Ends every idle server (stdin closed, then the process group killed after `grace`).
    pub async fn close(&self, grace: Duration) {
        let idle: Vec<Idle> = std::mem::take(&mut self.lock().idle);
        futures::future::join_all(idle.iter().map(|i| i.session.shutdown(grace))).await;
    }
}

/// True when the scenario can run on a server that answered other scenarios before (see the
/// module's documentation for why these are the conditions).
pub fn shareable(scenario: &Scenario) -> bool {
    if scenario.tags.iter().any(|t| t == FRESH_SERVER)
        || !scenario.requires.is_empty()
        || !scenario.knobs.is_empty()
    {
        return false;
    }
    let [(_, server)] = scenario.servers.as_slice() else {
        return false;
    };
    if !server.start
        || !server.vars.is_empty()
        || !server.env.is_empty()
        || !server.knobs.is_empty()
    {
        return false;
    }
    let legacy = scenario.pass != Some(Generation::Modern);
    let steps = match scenario.steps.split_first() {
        Some((first, rest)) if matches!(first.kind, StepKind::Initialize(_)) => {
            let opens = is_plain_handshake(&first.kind)
                && (legacy
                    || matches!(&first.kind, StepKind::Initialize(s) if s.generation.is_none()));
            if !opens || first.on.is_some() {
                return false;
            }
            rest
        }
        // A legacy scenario opens its session first: that is what a handed-over server did.
        _ if legacy => return false,
        _ => &scenario.steps,
    };
    only_asks(steps)
}

/// Requests whose effect outlives their answer: the session's minimum log level, its
/// resource subscriptions. A scenario that sends one may inherit a server, but does not give
/// it back: the next scenario would meet a session another one configured.
const SESSION_SETTERS: [&str; 3] = [
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// True when a step (blocks included) sends a request of [`SESSION_SETTERS`].
pub fn sets_session_state(steps: &[crate::model::Step]) -> bool {
    steps.iter().any(|step| match &step.kind {
        StepKind::Request(r) => SESSION_SETTERS.contains(&r.method.as_str()),
        StepKind::Repeat(block) => sets_session_state(&block.steps),
        StepKind::Parallel(block) => sets_session_state(&block.steps),
        _ => false,
    })
}

/// True when every step (blocks included) only asks and reads, on the one server.
fn only_asks(steps: &[crate::model::Step]) -> bool {
    steps.iter().all(|step| {
        step.on.is_none()
            && match &step.kind {
                // A request left unanswered keeps the server from going back to the pool
                // (the teardown checks), so `nowait` is as safe as a request awaited.
                StepKind::Request(_) | StepKind::Call(_) | StepKind::Await(_) => true,
                // Cancelling one of its own requests changes nothing a later scenario meets:
                // a request left unanswered keeps the server from going back to the pool.
                StepKind::Notify(n) => n.method == "notifications/cancelled",
                StepKind::Repeat(block) => only_asks(&block.steps),
                StepKind::Parallel(block) => only_asks(&block.steps),
                StepKind::ListTools(_)
                | StepKind::Exec(_)
                | StepKind::Set(_)
                | StepKind::Send(_)
                | StepKind::SendBytes(_)
                | StepKind::ExpectMessage(_)
                | StepKind::NoMessage(_)
                | StepKind::NoResponse(_)
                | StepKind::Stdout(_) => true,
                _ => false,
            }
    })
}

/// True when a step (blocks included) observes the server's whole life (`no_message`,
/// `stdout`), where what earlier scenarios made it send counts too: a warning there is judged
/// again on a fresh server, while a warning about an answer stands (see [`shareable`]).
pub fn observes_whole_life(steps: &[crate::model::Step]) -> bool {
    steps.iter().any(|step| match &step.kind {
        StepKind::NoMessage(_) | StepKind::Stdout(_) => true,
        StepKind::Repeat(block) => observes_whole_life(&block.steps),
        StepKind::Parallel(block) => observes_whole_life(&block.steps),
        _ => false,
    })
}

/// True for an `initialize` step a handed-over server can stand in for: the `initialize`
/// handshake followed by `notifications/initialized` (whatever version, capabilities and
/// client it names: the server is handed over only to a step sending the same request).
pub fn is_plain_handshake(kind: &StepKind) -> bool {
    matches!(kind, StepKind::Initialize(spec)
        if spec.initialized.is_none_or(|sent| sent)
            && spec.generation.is_none_or(|g| g == OpenMode::Legacy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(steps: &str, tags: &str) -> Scenario {
        let text = format!("name: s\nsuite: protocol\ntags: [{tags}]\nsteps:\n{steps}");
        crate::model::parse_scenario(&text, "s.yaml").expect("a valid scenario")
    }

    #[test]
    fn a_scenario_that_only_asks_is_shareable() {
        let s = scenario(
            "  - initialize: {}\n  - list_tools: {}\n  - call: echo\n    args: {}\n  - request: ping\n",
            "",
        );
        assert!(shareable(&s));
    }

    #[test]
    fn what_a_fresh_server_would_judge_differently_is_not() {
        for (steps, tags) in [
            // A handshake without `notifications/initialized` is not one a server made.
            ("  - initialize: { initialized: false }\n", ""),
            // Without its handshake first, a legacy scenario speaks to an opened session.
            ("  - list_tools: {}\n", ""),
            // Raw lines, forbidden messages, the exit: the server's whole life counts.
            ("  - initialize: {}\n  - stderr: {}\n", ""),
            ("  - initialize: {}\n  - notify: notifications/x\n", ""),
            ("  - initialize: {}\n  - stop: {}\n", ""),
            ("  - initialize: {}\n  - list_tools: {}\n", "fresh-server"),
        ] {
            assert!(!shareable(&scenario(steps, tags)), "{steps} [{tags}]");
        }
    }

    #[test]
    fn a_scenario_that_sets_a_log_level_inherits_but_does_not_hand_on() {
        let s = scenario(
            "  - initialize: {}\n  - request: logging/setLevel\n    params: { level: emergency }\n",
            "",
        );
        assert!(shareable(&s));
        assert!(sets_session_state(&s.steps));
        let plain = scenario("  - initialize: {}\n  - request: ping\n", "");
        assert!(!sets_session_state(&plain.steps));
    }
}
