//! Scenario files as written: the raw serde shape, deserialized with positions.
//!
//! A step is one YAML mapping holding exactly one *kind* key (`call`, `admin`, `file`...)
//! beside optional modifiers; its raw shape ([`RawStep`]) is defined with the kinds, in
//! [`super::steps`].

pub use super::steps::RawStep;
use crate::duration::Span;
use crate::sandbox::{DirName, DirSpec};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
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
    /// The ids of the official conformance suite's scenarios (`modelcontextprotocol/
    /// conformance`, `requirements/*.yaml`) whose checks this scenario carries out over
    /// stdio, e.g. `[resources-read-text]`; `list --mirrors` prints the coverage table.
    #[serde(default)]
    pub mirrors: Vec<String>,
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
    pub dirs: BTreeMap<DirName, DirSpec>,
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
