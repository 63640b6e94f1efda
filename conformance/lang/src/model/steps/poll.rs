//! `poll`: call a tool (or send a request) again and again until its observation matches
//! `until`.

use super::{Build, KindValue, Modifiers, StepKindInfo};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The descriptor of `poll`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "poll",
    doc: "Repeat a call (`call` + `args`) or a request (`request` + `params`) until `until` matches, within `within`, every `every`.",
    observes: true,
    modifiers: &["until", "within", "every"],
};

/// What `poll:` holds.
pub type Raw = PollSpec;

/// What `poll` repeats: a tool call or a request, exactly one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PollSpec {
    /// The tool to call.
    #[serde(default)]
    pub call: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Option<Value>,
    /// The request's method (`tasks/get`...), instead of a tool.
    #[serde(default)]
    pub request: Option<String>,
    /// The request's params.
    #[serde(default)]
    pub params: Option<Value>,
}

impl KindValue for PollSpec {}

/// What a `poll` step sends each time.
#[derive(Debug, Clone)]
pub enum Polled {
    /// `tools/call` of this tool with these arguments (default `{}`).
    Call { name: String, args: Option<Value> },
    /// This request with these params.
    Request {
        method: String,
        params: Option<Value>,
    },
}

/// A `poll` step.
#[derive(Debug, Clone)]
pub struct Poll {
    /// What it sends.
    pub polled: Polled,
    /// The pattern the call's observation must come to match.
    pub until: Value,
}

pub(super) fn build(raw: Raw, m: &mut Modifiers, cx: &mut dyn Build) -> Option<(Poll, String)> {
    let Some(until) = m.until.take() else {
        cx.error("`poll` needs an `until` pattern".into());
        return None;
    };
    let (polled, label) = match (raw.call, raw.request) {
        (Some(name), None) if raw.params.is_none() => {
            let label = format!("poll {name}");
            (Polled::Call { name, args: raw.args }, label)
        }
        (None, Some(method)) if raw.args.is_none() => {
            let label = format!("poll {method}");
            let polled = Polled::Request {
                method,
                params: raw.params,
            };
            (polled, label)
        }
        _ => {
            cx.error(
                "`poll` repeats either `call` (with `args`) or `request` (with `params`)".into(),
            );
            return None;
        }
    };
    Some((Poll { polled, until }, label))
}
