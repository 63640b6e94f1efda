//! Target files: how to start one implementation, what it claims, and its knobs.
//!
//! A target is the only place that knows an implementation's command line and environment;
//! scenarios stay implementation-neutral and name knobs instead.

use crate::duration::Span;
use crate::generation::Generation;
use crate::sandbox::DirSpec;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A target file (`fixtures/targets/*.yaml`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// The target's name, shown in reports.
    pub name: String,
    /// What the implementation is, for humans.
    #[serde(default)]
    pub description: Option<String>,
    /// The suites this target claims (`protocol`, `toolhub`, `hub`, `safe-mcp`...). Scenarios
    /// of other suites are skipped with a reason. `"*"` claims every suite.
    pub suites: Vec<String>,
    /// Protocol versions the server supports, newest first. Scenarios read them as
    /// `${target.protocol_versions.0}`; the first is the one `initialize` asks for by default.
    #[serde(default)]
    pub protocol_versions: Vec<String>,
    /// The lifecycle generations the server speaks: `legacy` (the `initialize` handshake),
    /// `modern` (2026-07-28: `server/discover` and per-request `_meta`), or `"*"` (claims
    /// both and every requirement; the liar). Default: `[legacy]`. A run drives the
    /// generations it is asked for (`--protocol`, default: these) and skips, with a reason,
    /// the passes the target does not speak.
    #[serde(default = "default_generations")]
    pub generations: Vec<GenerationClaim>,
    /// How to start the server under test.
    pub server: CommandSpec,
    /// The operator command (`admin` steps), when the implementation has one.
    #[serde(default)]
    pub admin: Option<CommandSpec>,
    /// Optional abilities scenarios may `require`, and how to switch them on. A knob named
    /// `"*"` claims every knob (used by the liar target).
    #[serde(default)]
    pub knobs: BTreeMap<String, Knob>,
    /// Extra variables for scenarios, visible as `${target.NAME}`.
    #[serde(default)]
    pub vars: BTreeMap<String, Value>,
    /// A default seed of every scenario's `${workspace}` (same form as a scenario's
    /// `workspace:`), laid under the scenario's own: where both name the same path, the
    /// scenario's entry wins, and a scenario's `git` replaces the target's. File contents
    /// and link targets are `${...}`-expanded like a scenario's. For a server that needs a
    /// file the scenarios of a generic suite do not seed, e.g. a hub's configuration, which
    /// the hub suite's scenarios seed themselves and the protocol suite's do not.
    #[serde(default)]
    pub workspace: DirSpec,
    /// A default seed of every scenario's `${state}` folder, laid under the scenario's own
    /// `state:` exactly as `workspace` is: e.g. a default policy file the server is started
    /// on (`--config ${state}/policy.toml`) that a suite's own scenarios replace.
    #[serde(default)]
    pub state: DirSpec,
    /// A default seed of every scenario's `${home}` folder, laid under the scenario's own
    /// `home:` exactly as `workspace` is.
    #[serde(default)]
    pub home: DirSpec,
    /// Default deadlines for this target.
    #[serde(default)]
    pub timeouts: Timeouts,
    /// Judge this target on checks of level `beyond` too: guarantees stronger than the
    /// documents, which our reference servers make and so their targets declare. Without it
    /// (an independent implementation's default) they are reported as not judged, unless
    /// a run asks for them with `--beyond`.
    #[serde(default)]
    pub beyond: bool,
}

/// A program to run: command, arguments, environment and working directory. Every string may
/// use `${...}` variables. A command without `/` is looked up next to `mcp-conformance` first,
/// then on `PATH`; a relative command with `/` is relative to the target file's folder.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// The program.
    pub command: String,
    /// Arguments (for `admin`, put before the step's own arguments).
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables to set.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Environment variables to remove from the inherited environment.
    #[serde(default)]
    pub env_remove: Vec<String>,
    /// Start from an empty environment (then only `env` and knobs apply).
    #[serde(default)]
    pub env_clear: bool,
    /// Working directory (default: the scenario's `${tmp}` folder).
    #[serde(default)]
    pub cwd: Option<String>,
}

/// An optional ability of the target that a scenario can require and set.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Knob {
    /// Either the name of one environment variable that receives the scenario's value
    /// (`env: TOOLHUB_APPROVAL_TTL_SECONDS`), or a map of variables to set whenever the knob
    /// is used, where `${value}` is the scenario's value.
    #[serde(default)]
    pub env: Option<KnobEnv>,
    /// Environment variables removed when the knob is used.
    #[serde(default)]
    pub env_remove: Vec<String>,
    /// Values exported to scenarios as `${knobs.KNOB.NAME}` (for example the program a
    /// target treats as a LOW-risk intrinsic).
    #[serde(default)]
    pub vars: BTreeMap<String, Value>,
    /// The server's arguments when the knob is used, in place of `server.args` (for example
    /// the same command line without a `--config PATH` option). They are `${...}`-expanded
    /// like `server.args`, with `${value}` the scenario's value. The operator command's
    /// arguments are never changed. When several knobs in use set them, the last by name wins.
    #[serde(default)]
    pub server_args: Option<Vec<String>>,
    /// What the knob means, for humans.
    #[serde(default)]
    pub description: Option<String>,
}

/// The two forms of a knob's `env`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum KnobEnv {
    /// One variable that receives the scenario's value.
    Name(String),
    /// Several variables; `${value}` inside them is the scenario's value.
    Map(BTreeMap<String, String>),
}

/// One entry of a target's `generations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum GenerationClaim {
    /// The `initialize` handshake.
    #[serde(rename = "legacy")]
    Legacy,
    /// 2026-07-28: `server/discover` and per-request `_meta`.
    #[serde(rename = "modern")]
    Modern,
    /// Every generation, and any scenario's requirement on them (the liar).
    #[serde(rename = "*")]
    Any,
}

fn default_generations() -> Vec<GenerationClaim> {
    vec![GenerationClaim::Legacy]
}

/// Default deadlines; scenarios may set their own.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    /// Deadline of one step (default 10s).
    #[serde(default = "default_step")]
    pub step: Span,
    /// Deadline of a whole scenario (default 60s).
    #[serde(default = "default_scenario")]
    pub scenario: Span,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            step: default_step(),
            scenario: default_scenario(),
        }
    }
}

fn default_step() -> Span {
    Span(std::time::Duration::from_secs(10))
}

fn default_scenario() -> Span {
    Span(std::time::Duration::from_secs(60))
}

impl Target {
    /// True when the target claims `suite` (or every suite).
    pub fn claims_suite(&self, suite: &str) -> bool {
        self.suites.iter().any(|s| s == "*" || s == suite)
    }

    /// True when the target speaks `generation`.
    pub fn speaks(&self, generation: Generation) -> bool {
        self.generations.iter().any(|c| match c {
            GenerationClaim::Any => true,
            GenerationClaim::Legacy => generation == Generation::Legacy,
            GenerationClaim::Modern => generation == Generation::Modern,
        })
    }

    /// True when the target speaks exactly the generations in `wanted` (or claims `"*"`).
    pub fn speaks_exactly(&self, wanted: &[Generation]) -> bool {
        self.generations.contains(&GenerationClaim::Any)
            || Generation::ALL
                .iter()
                .all(|g| self.speaks(*g) == wanted.contains(g))
    }

    /// The generations the target speaks, in report order.
    pub fn spoken(&self) -> Vec<Generation> {
        Generation::ALL
            .into_iter()
            .filter(|g| self.speaks(*g))
            .collect()
    }

    /// The knob named `name`, or the catch-all `"*"` knob.
    pub fn knob(&self, name: &str) -> Option<&Knob> {
        self.knobs.get(name).or_else(|| self.knobs.get("*"))
    }
}
