//! The state of one running scenario: its sandbox, variables, servers and handles.

use super::share::ServerPool;
use crate::interp::{InterpError, Vars};
use crate::model::{CommandSpec, KnobEnv, Scenario, Target};
use crate::process::{Invocation, resolve_program};
use crate::sandbox::Sandbox;
use crate::session::{Findings, Session};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// What every scenario of a run shares: the target and where things are.
#[derive(Debug, Clone)]
pub struct TargetCtx {
    pub target: Target,
    /// The target file as named on the command line.
    pub display: String,
    /// The folder of the target file (relative commands resolve against it).
    pub dir: PathBuf,
    /// This program, which is also the fixture server and the probe.
    pub exe: PathBuf,
    /// Running servers that scenarios which only ask and read answers share (`share.rs`);
    /// `None`: every scenario starts its own.
    pub pool: Option<Arc<ServerPool>>,
}

impl TargetCtx {
    /// Folders searched before `PATH` for a bare command: the one holding this program, so
    /// an installed or freshly built set of binaries finds its siblings.
    pub fn bin_dirs(&self) -> Vec<PathBuf> {
        self.exe
            .parent()
            .map(Path::to_path_buf)
            .into_iter()
            .collect()
    }

    /// Variables every scenario sees before its own.
    pub fn base_vars(&self) -> Vars {
        let mut vars = Vars::default();
        vars.set_str("conformance", self.exe.display().to_string());
        vars.set_str("target_dir", self.dir.display().to_string());
        if let Some(bin) = self.bin_dirs().first() {
            vars.set_str("bin_dir", bin.display().to_string());
        }
        let mut target = serde_json::Map::new();
        target.insert("name".into(), Value::String(self.target.name.clone()));
        target.insert(
            "protocol_versions".into(),
            serde_json::to_value(&self.target.protocol_versions).unwrap_or(Value::Null),
        );
        for (k, v) in &self.target.vars {
            target.insert(k.clone(), v.clone());
        }
        vars.set("target", Value::Object(target));
        let knobs: serde_json::Map<String, Value> = self
            .target
            .knobs
            .iter()
            .map(|(name, knob)| {
                let vars: serde_json::Map<String, Value> = knob
                    .vars
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                (name.clone(), Value::Object(vars))
            })
            .collect();
        vars.set("knobs", Value::Object(knobs));
        vars
    }
}

/// A named server of the scenario and how to start it.
pub struct ServerSlot {
    pub name: String,
    /// The variables its command line was expanded with (`workspace` may be rebound).
    pub bindings: Vars,
    pub invocation: Invocation,
    /// The operator command's invocation without the step's arguments.
    pub admin: Option<Invocation>,
    pub session: tokio::sync::RwLock<Option<Arc<Session>>>,
}

impl ServerSlot {
    /// The running session, if any.
    pub async fn current(&self) -> Option<Arc<Session>> {
        self.session.read().await.clone()
    }

    /// The folder relative `file` paths of steps on this server resolve against.
    pub fn workspace(&self) -> PathBuf {
        self.bindings
            .get("workspace")
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .unwrap_or_default()
    }
}

/// A request sent with `nowait`, collected later by `await`.
#[derive(Debug, Clone)]
pub struct Pending {
    pub session: Arc<Session>,
    pub id: Value,
    pub is_call: bool,
    pub progress_token: Option<Value>,
}

/// One scenario in progress, owned by that scenario's task: no other scenario sees it. The
/// plan (target, scenario) is read-only; the locks guard what the steps of a
/// `parallel` block share while they run at once in this task (variables, `nowait` requests,
/// pid files, declared output schemas), and are never contended across scenarios.
pub struct Run<'a> {
    pub target: &'a TargetCtx,
    pub scenario: &'a Scenario,
    pub sandbox: Sandbox,
    pub vars: Mutex<Vars>,
    pub servers: Vec<ServerSlot>,
    pub step_timeout: Duration,
    pub pending: Mutex<HashMap<String, Pending>>,
    /// Pid files named by `processes` steps; their processes are killed at the end.
    pub pidfiles: Mutex<Vec<PathBuf>>,
    /// The `outputSchema` each tool declared in the last `tools/list` of each server (by
    /// server index), so a `call` can say whether its result conforms.
    pub declared_outputs: Mutex<HashMap<(usize, String), Value>>,
    /// Seconds since boot when the scenario started (pids started before are never killed).
    pub started_uptime: Option<f64>,
    /// What every session the scenario started (restarted ones too) found that breaks
    /// JSON-RPC 2.0 (`jsonrpc.rs`).
    pub started: Mutex<Vec<Findings>>,
    /// Set when the scenario may run on a shared server (`share.rs`).
    pub sharing: Option<Sharing>,
}

/// A scenario's use of the run's shared servers.
pub struct Sharing {
    pub pool: Arc<ServerPool>,
    /// Where its first server came from.
    pub lease: Mutex<Leased>,
    /// The legacy handshake, its `initialize` params and the observation of the answer: the
    /// one the inherited server made, or the one this scenario made (handed on with it).
    pub handshake: Mutex<Option<(Value, Value)>>,
}

/// Where a sharing scenario's server came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leased {
    /// Not asked yet (or the scenario never got to start it).
    Nothing,
    /// From the pool: it answered other scenarios first.
    Inherited,
    /// Started by this scenario in the pool's room: given back or retired at the end.
    Started,
    /// Started by this scenario as its own (the pool had no room in time).
    Own,
}

impl Sharing {
    /// A scenario's sharing of `pool`, before it has a server.
    pub fn new(pool: Arc<ServerPool>) -> Sharing {
        Sharing {
            pool,
            lease: Mutex::new(Leased::Nothing),
            handshake: Mutex::new(None),
        }
    }

    /// True when the server came from the pool.
    pub fn inherited(&self) -> bool {
        *lock(&self.lease) == Leased::Inherited
    }
}

/// Locks a std mutex, ignoring poisoning (a panicked step must not hide the report).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Run<'_> {
    /// The server a step talks to: `on`, else the first declared.
    pub fn server_index(&self, on: Option<&str>) -> usize {
        on.and_then(|name| self.servers.iter().position(|s| s.name == name))
            .unwrap_or(0)
    }

    /// Expands a string with the scenario's variables.
    pub fn expand_str(&self, s: &str) -> Result<String, InterpError> {
        lock(&self.vars).expand_str(s)
    }

    /// Expands a JSON value with the scenario's variables.
    pub fn expand(&self, v: &Value) -> Result<Value, InterpError> {
        lock(&self.vars).expand(v)
    }
}

/// Everything that can stop a scenario from being set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Interp(#[from] InterpError),
    #[error("cannot find the program {0:?} (looked next to mcp-conformance and on PATH)")]
    ProgramNotFound(String),
    #[error("{0}")]
    Other(String),
}

/// Expands a target command for one server, with its knobs applied.
pub fn build_invocation(
    tctx: &TargetCtx,
    spec: &CommandSpec,
    bindings: &Vars,
    knob_values: &BTreeMap<String, Value>,
    extra_env: &BTreeMap<String, String>,
    default_cwd: &Path,
) -> Result<Invocation, SetupError> {
    let command = bindings.expand_str(&spec.command)?;
    let program = resolve_program(&command, &tctx.dir, &tctx.bin_dirs())
        .ok_or_else(|| SetupError::ProgramNotFound(command.clone()))?;
    let args = spec
        .args
        .iter()
        .map(|a| bindings.expand_str(a))
        .collect::<Result<Vec<_>, _>>()?;
    let mut env = BTreeMap::new();
    for (k, v) in &spec.env {
        env.insert(k.clone(), bindings.expand_str(v)?);
    }
    let mut env_remove = spec.env_remove.clone();
    for (name, value) in knob_values {
        let Some(knob) = tctx.target.knob(name) else {
            continue;
        };
        let mut with_value = bindings.clone();
        with_value.set("value", value.clone());
        match &knob.env {
            Some(KnobEnv::Name(var)) => {
                env.insert(var.clone(), crate::interp::as_text(value));
            }
            Some(KnobEnv::Map(map)) => {
                for (k, v) in map {
                    env.insert(k.clone(), with_value.expand_str(v)?);
                }
            }
            None => {}
        }
        for k in &knob.env_remove {
            env.remove(k);
            env_remove.push(k.clone());
        }
    }
    for (k, v) in extra_env {
        env.insert(k.clone(), bindings.expand_str(v)?);
    }
    let cwd = match &spec.cwd {
        Some(c) => PathBuf::from(bindings.expand_str(c)?),
        None => default_cwd.to_path_buf(),
    };
    Ok(Invocation {
        program,
        args,
        env,
        env_remove,
        env_clear: spec.env_clear,
        cwd,
    })
}

/// The server arguments a knob in use replaces `server.args` with (`None`: none does).
pub fn knob_server_args(
    tctx: &TargetCtx,
    bindings: &Vars,
    knob_values: &BTreeMap<String, Value>,
) -> Result<Option<Vec<String>>, SetupError> {
    let mut out = None;
    for (name, value) in knob_values {
        let Some(args) = tctx.target.knob(name).and_then(|k| k.server_args.as_ref()) else {
            continue;
        };
        let mut with_value = bindings.clone();
        with_value.set("value", value.clone());
        out = Some(
            args.iter()
                .map(|a| with_value.expand_str(a))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(out)
}
