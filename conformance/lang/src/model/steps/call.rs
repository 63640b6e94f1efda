//! `call`: call a tool (`tools/call`), optionally asking for progress or leaving the
//! response to a later `await`.

use super::{Build, Modifiers, StepKindInfo, label};
use serde_json::Value;

/// The descriptor of `call`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "call",
    doc: "Call a tool by name with `args`; observation `{isError, structured, content, text, result, error, progress, outputSchema}` (`outputSchema`: whether the result conforms to the tool's declared outputSchema, after a `list_tools`).",
    observes: true,
    modifiers: &["args", "meta", "progress", "rounds", "nowait", "skip_unless"],
};

/// What `call:` holds: the tool's name.
pub type Raw = String;

/// A `call` step.
#[derive(Debug, Clone)]
pub struct Call {
    /// The tool's name (interpolated when run).
    pub name: String,
    /// Its arguments (default `{}`).
    pub args: Option<Value>,
    /// `_meta` of the request.
    pub meta: Option<Value>,
    /// Ask for progress notifications with a fresh token.
    pub progress: bool,
    /// Retries an `input_required` result may take (0: the first answer is the observation).
    pub rounds: u32,
    /// Do not wait: the handle an `await` step collects the response by.
    pub nowait: Option<String>,
}

pub(super) fn build(name: Raw, m: &mut Modifiers, _: &mut dyn Build) -> Option<(Call, String)> {
    let label = label(&INFO, &name);
    let call = Call {
        name,
        args: m.args.take(),
        meta: m.meta.take(),
        progress: m.progress.unwrap_or(false),
        rounds: m.rounds.unwrap_or(0),
        nowait: m.nowait.take(),
    };
    Some((call, label))
}
