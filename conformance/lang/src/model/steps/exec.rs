//! `exec`: run a program (the suite's probe, git, a script) in the sandbox.

use super::{Build, KindValue, Modifiers, StepKindInfo, label};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The descriptor of `exec`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "exec",
    doc: "Run a program; observation `{exit, stdout, stderr}`.",
    observes: true,
    modifiers: &["stdin", "within", "every", "skip_unless"],
};

/// What `exec:` holds.
pub type Raw = ExecSpec;

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

impl KindValue for ExecSpec {}

/// An `exec` step.
#[derive(Debug, Clone)]
pub struct Exec {
    /// The program and how to run it.
    pub spec: ExecSpec,
    /// Its standard input.
    pub stdin: Option<String>,
}

pub(super) fn build(spec: Raw, m: &mut Modifiers, _: &mut dyn Build) -> Option<(Exec, String)> {
    let label = label(&INFO, &spec.program);
    let stdin = m.stdin.take();
    Some((Exec { spec, stdin }, label))
}
