//! Scenario files as written: the raw serde shape, deserialized with positions.
//!
//! Each step is one YAML mapping holding exactly one *kind* key (`call`, `admin`, `file`...)
//! beside optional modifiers (`args`, `expect`, `save`, `on`...). serde cannot express "one of
//! these keys plus shared siblings" as an enum, so the raw step is a flat struct that
//! [`super::validate`] turns into a typed [`super::Step`], pointing at the step's line and
//! column when it is malformed.

use crate::duration::Span;
use crate::sandbox::DirSpec;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// A scenario file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// Unique name, conventionally `suite/what-it-checks`.
    pub name: String,
    /// The suite it belongs to; it runs only against targets claiming that suite.
    pub suite: String,
    /// What the scenario checks and what it assumes where the specification is silent.
    #[serde(default)]
    pub description: Option<String>,
    /// The specification section(s) the scenario checks (a URL or a document section).
    #[serde(default)]
    pub spec: Option<OneOrMany>,
    /// Where the rule comes from: the document (or specification page) and the sentence
    /// quoted. Required in the built-in suites (see [`super::level::SOURCED_SUITES`]).
    #[serde(default)]
    pub source: Option<super::level::Sources>,
    /// How binding the scenario's checks are (default `must`); a step may override it.
    #[serde(default)]
    pub level: Option<super::level::Level>,
    /// Labels for `--tag` selection and reports.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Target knobs the scenario needs; without them it is skipped with a reason.
    #[serde(default)]
    pub requires: Vec<String>,
    /// The exact generations a target must speak for the scenario to apply, e.g. `[legacy]`
    /// for "a legacy-only server answers server/discover with an error"; other targets skip
    /// it with a reason. (Which *pass* a scenario runs in is said by the tags `legacy` and
    /// `modern`: a scenario tagged with one runs only in that generation's pass.)
    #[serde(default)]
    pub generations: Option<Vec<crate::generation::Generation>>,
    /// Values for knobs, applied to every server (a server may override them).
    #[serde(default)]
    pub knobs: BTreeMap<String, Value>,
    /// Deadline of the whole scenario (default: the target's).
    #[serde(default)]
    pub timeout: Option<Span>,
    /// Default deadline of each step (default: the target's).
    #[serde(default)]
    pub step_timeout: Option<Span>,
    /// Extra variables, expanded once at the start.
    #[serde(default)]
    pub vars: IndexMap<String, Value>,
    /// The servers to start, by name, in this order (default: one server called `main`).
    #[serde(default)]
    pub servers: Option<IndexMap<String, ServerSpec>>,
    /// Seed of the `${workspace}` folder.
    #[serde(default)]
    pub workspace: DirSpec,
    /// Seed of the `${state}` folder.
    #[serde(default)]
    pub state: DirSpec,
    /// Seed of the `${home}` folder.
    #[serde(default)]
    pub home: DirSpec,
    /// Extra named folders, visible as `${dirs.NAME}`.
    #[serde(default)]
    pub dirs: BTreeMap<String, DirSpec>,
    /// What to do, in order.
    #[schemars(with = "Vec<RawStep>")]
    pub steps: Vec<Spanned<RawStep>>,
}

/// A string or a list of strings.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    /// The entries as a list.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// One server of a scenario: the target's server with some variables rebound.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerSpec {
    /// Variables rebound for this server's command line and environment, e.g.
    /// `workspace: "${dirs.other}"` to start it on another folder.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// Extra environment variables for this server (and its operator command).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Knob values for this server, over the scenario's.
    #[serde(default)]
    pub knobs: BTreeMap<String, Value>,
    /// Start it when the scenario starts (default true); otherwise a `start` step does.
    #[serde(default = "yes")]
    pub start: bool,
}

fn yes() -> bool {
    true
}

/// A step as written. Exactly one of the kind keys must be present.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    // ---- kinds ----
    /// Send `initialize` (then `notifications/initialized` unless `initialized: false`).
    #[serde(default, deserialize_with = "present")]
    pub initialize: Option<InitializeSpec>,
    /// Send `tools/list` (following `nextCursor`); observation `{tools, result, error}`.
    #[serde(default, deserialize_with = "present")]
    pub list_tools: Option<NoArgs>,
    /// Call a tool by name with `args`; observation `{isError, structured, content, text,
    /// result, error, progress}`.
    #[serde(default)]
    pub call: Option<String>,
    /// Wait for the response of an earlier step sent with `nowait: HANDLE`.
    #[serde(default, rename = "await")]
    pub await_: Option<String>,
    /// Repeat a call until `until` matches, within `within`, every `every`.
    #[serde(default)]
    pub poll: Option<PollSpec>,
    /// Send any request by method name with `params`; observation `{result, error}`.
    #[serde(default)]
    pub request: Option<String>,
    /// Send a notification by method name with `params`.
    #[serde(default)]
    pub notify: Option<String>,
    /// Write this text to the server's stdin byte for byte, then a newline unless
    /// `newline: false`.
    #[serde(default)]
    pub send: Option<String>,
    /// Wait for the next unconsumed message from the server that matches this pattern.
    #[serde(default)]
    #[schemars(with = "Option<Value>")]
    pub expect_message: Option<Spanned<Value>>,
    /// Fail if the request sent with `nowait: HANDLE` is answered (so far, or within
    /// `within`): e.g. a cancelled request must never be answered.
    #[serde(default)]
    pub no_response: Option<String>,
    /// Fail if any unsolicited message (not a response to this client's own requests)
    /// received so far, or within `within`, matches this pattern.
    #[serde(default)]
    #[schemars(with = "Option<Value>")]
    pub no_message: Option<Spanned<Value>>,
    /// Run the target's operator command with these arguments; observation
    /// `{exit, stdout, stderr}`.
    #[serde(default)]
    pub admin: Option<Vec<String>>,
    /// Run a program; observation `{exit, stdout, stderr}`.
    #[serde(default)]
    pub exec: Option<ExecSpec>,
    /// Look at a path (relative to the server's `${workspace}`, or absolute); observation
    /// `{exists, kind, size, sha256, content, target, entries, mode}`.
    #[serde(default)]
    pub file: Option<String>,
    /// Count the recorded processes still alive; observation `{recorded, alive, alive_pids}`.
    #[serde(default)]
    pub processes: Option<ProcessesSpec>,
    /// The server's stderr so far; observation `{text, lines}`.
    #[serde(default, deserialize_with = "present")]
    pub stderr: Option<NoArgs>,
    /// The server's stdout so far; observation `{messages, invalid, text}`.
    #[serde(default, deserialize_with = "present")]
    pub stdout: Option<NoArgs>,
    /// Start a server declared with `start: false` (or one that was stopped).
    #[serde(default, deserialize_with = "present")]
    pub start: Option<NoArgs>,
    /// Stop the server (stdin closed, killed after a grace period) and start it again.
    #[serde(default, deserialize_with = "present")]
    pub restart: Option<NoArgs>,
    /// Close the server's stdin and wait for it to exit within `within`; observation
    /// `{exited, code, signal, stdout, stderr}`.
    #[serde(default, deserialize_with = "present")]
    pub stop: Option<NoArgs>,
    /// Wait, without closing stdin, for the server to exit on its own within `within`.
    #[serde(default, deserialize_with = "present")]
    pub wait_exit: Option<NoArgs>,
    /// Send a signal (default `TERM`) to the server process.
    #[serde(default, deserialize_with = "present")]
    pub kill: Option<KillSpec>,
    /// Run these steps at the same time; the step ends when all have.
    #[serde(default)]
    #[schemars(with = "Option<Vec<RawStep>>")]
    pub parallel: Option<Vec<Spanned<RawStep>>>,
    /// Set variables (values are expanded).
    #[serde(default)]
    pub set: Option<IndexMap<String, Value>>,
    /// Run steps several times, with the round number in a variable.
    #[serde(default)]
    pub repeat: Option<RepeatSpec>,
    /// Compare `tools/list` with a contract surface file (JSON: tool names, annotations,
    /// input/output properties and required fields), relative to the scenario file;
    /// observation `{tools, missing, extra, mismatches}`.
    #[serde(default)]
    pub contract: Option<String>,

    // ---- modifiers ----
    /// Which server the step talks to (default: the first declared).
    #[serde(default)]
    pub on: Option<String>,
    /// Tool arguments (`call`; `poll` takes them inside `poll:`).
    #[serde(default)]
    pub args: Option<Value>,
    /// Request or notification params (`request`, `notify`).
    #[serde(default)]
    pub params: Option<Value>,
    /// `_meta` for a `call` or `request`.
    #[serde(default)]
    pub meta: Option<Value>,
    /// Ask for progress (`_meta.progressToken`) on a `call`.
    #[serde(default)]
    pub progress: Option<bool>,
    /// Send the request and go on; an `await: HANDLE` step collects the response. The
    /// request id is saved as `${HANDLE.id}`.
    #[serde(default)]
    pub nowait: Option<String>,
    /// A pattern the step's observation must match.
    #[serde(default)]
    #[schemars(with = "Option<Value>")]
    pub expect: Option<Spanned<Value>>,
    /// The pattern a `poll` waits for.
    #[serde(default)]
    #[schemars(with = "Option<Value>")]
    pub until: Option<Spanned<Value>>,
    /// Variables to capture: `NAME: path.in.observation`.
    #[serde(default)]
    pub save: Option<BTreeMap<String, String>>,
    /// Standard input for `admin` and `exec`.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Extra environment for `admin`.
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
    /// Keep retrying an observation (`file`, `processes`, `stderr`, `stdout`, `exec`,
    /// `expect_message`, `no_message`) until it matches, or wait this long for an exit.
    #[serde(default)]
    pub within: Option<Span>,
    /// Interval between attempts of `poll` and `within` (default 50ms).
    #[serde(default)]
    pub every: Option<Span>,
    /// Deadline of this step (default: the scenario's step timeout).
    #[serde(default)]
    pub timeout: Option<Span>,
    /// With `send`: append a newline (default true).
    #[serde(default)]
    pub newline: Option<bool>,
    /// A label for reports instead of the generated one.
    #[serde(default)]
    pub label: Option<String>,
    /// How binding this step's check is, over the scenario's level (top-level steps only).
    #[serde(default)]
    pub level: Option<super::level::Level>,
}

/// Accepts a key written without a value (`- stop:`) as present.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Some(Option::<T>::deserialize(d)?.unwrap_or_default()))
}

/// A kind key that takes no arguments: write `{}` or nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Options of `initialize`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitializeSpec {
    /// The version to ask for (default: the target's first `protocol_versions`, else
    /// 2025-11-25).
    #[serde(default, rename = "protocolVersion")]
    pub protocol_version: Option<String>,
    /// Client capabilities (default `{}`).
    #[serde(default)]
    pub capabilities: Option<Value>,
    /// Client info (default `{name: mcp-conformance, version}`).
    #[serde(default, rename = "clientInfo")]
    pub client_info: Option<Value>,
    /// Send `notifications/initialized` after a successful answer (default true).
    #[serde(default)]
    pub initialized: Option<bool>,
    /// How to open the session: `legacy` (`initialize`), `modern` (`server/discover`, then
    /// per-request `_meta`), or `auto` (`server/discover` first; on any error but
    /// UnsupportedProtocolVersionError, or no answer within the step's deadline, fall back
    /// to `initialize`, as a dual-generation stdio client does). Default: the run's pass.
    #[serde(default)]
    pub generation: Option<OpenMode>,
}

/// How an `initialize` step opens the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OpenMode {
    /// The `initialize` handshake.
    Legacy,
    /// `server/discover`, then per-request `_meta`.
    Modern,
    /// Probe with `server/discover`, fall back to `initialize`.
    Auto,
}

/// What `poll` repeats.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PollSpec {
    /// The tool to call.
    pub call: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Option<Value>,
}

/// A program for `exec`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecSpec {
    /// The program (`${conformance}` is this suite's own binary, e.g. for the probe).
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory (default `${workspace}`).
    #[serde(default)]
    pub cwd: Option<String>,
}

/// Options of `processes`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessesSpec {
    /// A file with one pid per line (as the probe's `--pidfile` writes).
    pub pidfile: String,
}

/// Options of `repeat`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeatSpec {
    /// How many rounds (at most 1,000,000).
    pub times: u64,
    /// The variable holding the round number, counting from 1 (default `i`).
    #[serde(default)]
    pub var: Option<String>,
    /// The steps of one round.
    #[schemars(with = "Vec<RawStep>")]
    pub steps: Vec<Spanned<RawStep>>,
}

/// Options of `kill`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillSpec {
    /// Signal name: TERM (default), KILL, INT, HUP.
    #[serde(default)]
    pub signal: Option<String>,
}
