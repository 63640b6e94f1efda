//! `repeat`: run steps several times, with the round number in a variable.

use super::{Build, KindValue, Modifiers, RawStep, Step, StepKindInfo};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

/// The descriptor of `repeat`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "repeat",
    doc: "Run steps several times, with the round number in a variable.",
    observes: false,
    modifiers: &[],
};

/// What `repeat:` holds.
pub type Raw = RepeatSpec;

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

impl KindValue for RepeatSpec {}

/// The most rounds a `repeat` may ask for.
const MAX_ROUNDS: u64 = 1_000_000;

/// A `repeat` step.
#[derive(Debug, Clone)]
pub struct Repeat {
    /// How many rounds.
    pub times: u64,
    /// The variable holding the round number.
    pub var: String,
    /// The steps of one round.
    pub steps: Vec<Step>,
}

pub(super) fn build(raw: Raw, _: &mut Modifiers, cx: &mut dyn Build) -> Option<(Repeat, String)> {
    if raw.times > MAX_ROUNDS {
        cx.error("`repeat` takes at most 1,000,000 rounds".into());
    }
    if raw.steps.is_empty() {
        cx.error("`repeat` needs at least one step".into());
    }
    let steps = cx.block(raw.steps, INFO.name);
    let label = format!("repeat {} times", raw.times);
    let repeat = Repeat {
        times: raw.times,
        var: raw.var.unwrap_or_else(|| "i".to_string()),
        steps,
    };
    Some((repeat, label))
}
