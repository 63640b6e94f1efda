//! The step kinds of the scenario language, one module each (`call.rs`, `admin.rs`, ...).
//!
//! A kind's module holds all the language knows of it: its descriptor ([`StepKindInfo`]:
//! name, documentation, whether it observes, which modifiers it takes), the value written
//! under its key (`Raw`), the typed step it becomes and `build`, which turns one into the
//! other. The list in [`for_each_step_kind!`](crate::for_each_step_kind) is the one
//! registration: from it come the modules, the [`StepKind`] enum, the kind keys of
//! [`RawStep`] (with their JSON Schema descriptions), [`STEP_KINDS`] (which validation and
//! the README check read) and the dispatch from a raw step to its kind's `build`. The engine
//! reads the same list to find each kind's runner in a module of the same name.
//!
//! Adding a kind: a module here, a module of the same name in the engine's
//! `runner/steps/`, and one line in the list.

mod raw;

pub use raw::{KIND_MODIFIERS, KindValue, Modifiers, NoArgs, RawPattern, RawSteps};

use super::level::Level;
use super::position::Position;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::time::Duration;

/// Every step kind, in the order the README's step table lists them: `module => Variant`.
/// It calls `$callback! { module => Variant, ... }`, so the language and the engine each
/// derive what they need from this one list.
#[macro_export]
macro_rules! for_each_step_kind {
    ($callback:ident) => {
        $callback! {
            initialize => Initialize,
            list_tools => ListTools,
            call => Call,
            r#await => Await,
            poll => Poll,
            request => Request,
            notify => Notify,
            answer => Answer,
            send => Send,
            send_bytes => SendBytes,
            expect_message => ExpectMessage,
            no_message => NoMessage,
            no_response => NoResponse,
            admin => Admin,
            exec => Exec,
            file => File,
            processes => Processes,
            stderr => Stderr,
            stdout => Stdout,
            start => Start,
            restart => Restart,
            stop => Stop,
            wait_exit => WaitExit,
            kill => Kill,
            parallel => Parallel,
            set => Set,
            repeat => Repeat,
            contract => Contract,
        }
    };
}

/// What a step kind is, as far as the language is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepKindInfo {
    /// The kind key a scenario writes (`call`, `admin`, ...).
    pub name: &'static str,
    /// What the kind does, as the JSON Schema of scenarios describes its key.
    pub doc: &'static str,
    /// True when the step yields an observation (`expect` and `save` apply).
    pub observes: bool,
    /// The kind-specific modifiers it accepts (besides `on`, `timeout`, `label`, `level`).
    pub modifiers: &'static [&'static str],
}

/// What a kind's `build` may ask of the validation that called it.
pub trait Build {
    /// Reports a mistake at the step's position.
    fn error(&mut self, message: String);
    /// Checks a pattern written in the step (reported at its own position when known) and
    /// returns it.
    fn pattern(&mut self, what: &str, pattern: &Spanned<Value>) -> Value;
    /// Validates the steps of a block (`parallel`, `repeat`), which carry no `level`.
    fn block(&mut self, steps: Vec<Spanned<RawStep>>, block: &str) -> Vec<Step>;
}

/// One validated step.
#[derive(Debug, Clone)]
pub struct Step {
    pub kind: StepKind,
    pub position: Position,
    pub on: Option<String>,
    pub expect: Option<Value>,
    pub save: BTreeMap<String, String>,
    pub within: Option<Duration>,
    pub every: Option<Duration>,
    pub timeout: Option<Duration>,
    /// A short human label (`call echo`, `admin approve ${rid}`).
    pub label: String,
    /// This step's weight over the scenario's level (top-level steps only).
    pub level: Option<Level>,
    /// A precondition (top-level `file` and `exec` steps with an `expect`): when the
    /// observation does not match, the scenario is not judged on this target and is
    /// reported skipped, this text saying what it needs.
    pub skip_unless: Option<String>,
}

impl Step {
    /// True when later steps may need what this step leaves behind: variables it `save`s or
    /// the handle of a `nowait` request. A failed step that captures nothing leaves the
    /// scenario as it was, so the steps after it can still be carried out.
    pub fn captures(&self) -> bool {
        let handle = match &self.kind {
            StepKind::Call(call) => call.nowait.is_some(),
            StepKind::Request(request) => request.nowait.is_some(),
            _ => false,
        };
        handle || !self.save.is_empty()
    }
}

macro_rules! define_step_kinds {
    ($( $module:ident => $Variant:ident ),* $(,)?) => {
        $( pub mod $module; )*

        /// What a step does: one variant per kind, holding that kind's typed step.
        #[derive(Debug, Clone)]
        pub enum StepKind {
            $( #[doc = concat!("See [`", stringify!($module), "`].")] $Variant($module::$Variant), )*
        }

        impl StepKind {
            /// The descriptor of this step's kind.
            pub fn info(&self) -> &'static StepKindInfo {
                match self {
                    $( StepKind::$Variant(_) => &$module::INFO, )*
                }
            }
        }

        /// Every step kind's descriptor, in the order the README's step table lists them.
        pub const STEP_KINDS: &[StepKindInfo] = &[ $( $module::INFO, )* ];

        /// The module names of the kinds, as the list writes them (a test checks each is its
        /// kind's name, which is the key serde reads).
        #[cfg(test)]
        const MODULE_NAMES: &[&str] = &[ $( stringify!($module), )* ];

        /// A step as written: exactly one kind key, beside the modifiers. serde cannot express
        /// "one of these keys plus shared siblings" as an enum, so the raw step is a flat
        /// struct that validation turns into a typed [`Step`], pointing at the step's line and
        /// column when it is malformed.
        #[derive(Debug, Default, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct RawStep {
            $(
                #[serde(default, deserialize_with = "raw::kind_value")]
                #[schemars(description = $module::INFO.doc)]
                pub $module: Option<$module::Raw>,
            )*
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
            /// Multi round-trip requests (2026-07-28): answer an `input_required` result's
            /// `inputRequests` and retry the `call` or `request`, at most this many times.
            #[serde(default)]
            pub rounds: Option<u32>,
            /// `request`: give the params `inputResponses` answering the input requests of
            /// `from` (a saved `inputRequests` map, as a task's `tasks/get` shows it), each by
            /// its method as `rounds` answers them; `take: N` answers only the first N.
            #[serde(default)]
            pub answer_inputs: Option<request::AnswerInputs>,
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
            pub within: Option<crate::duration::Span>,
            /// Interval between attempts of `poll` and `within` (default 50ms).
            #[serde(default)]
            pub every: Option<crate::duration::Span>,
            /// Deadline of this step (default: the scenario's step timeout).
            #[serde(default)]
            pub timeout: Option<crate::duration::Span>,
            /// With `send`: append a newline (default true).
            #[serde(default)]
            pub newline: Option<bool>,
            /// A label for reports instead of the generated one.
            #[serde(default)]
            pub label: Option<String>,
            /// How binding this step's check is, over the scenario's level (top-level steps
            /// only).
            #[serde(default)]
            pub level: Option<Level>,
            /// With `file` and `exec` (and an `expect`): a precondition. When the observation
            /// does not match, the scenario is not judged on this target: it stops and is
            /// reported skipped, this text (what the scenario needs) as the reason.
            #[serde(default)]
            pub skip_unless: Option<String>,
        }

        impl RawStep {
            /// The descriptors of the kind keys this step has (one, when it is well formed).
            pub fn kinds_present(&self) -> Vec<&'static StepKindInfo> {
                let mut present = Vec::new();
                $( if self.$module.is_some() { present.push(&$module::INFO); } )*
                present
            }

            /// Turns the step's (single) kind key into its typed kind and default label.
            pub(crate) fn build_kind(
                &mut self,
                modifiers: &mut Modifiers,
                cx: &mut dyn Build,
            ) -> Option<(StepKind, String)> {
                $(
                    if let Some(raw) = self.$module.take() {
                        return $module::build(raw, modifiers, cx)
                            .map(|(kind, label)| (StepKind::$Variant(kind), label));
                    }
                )*
                None
            }
        }
    };
}

crate::for_each_step_kind!(define_step_kinds);

/// The description of kind `name`.
pub fn step_kind(name: &str) -> Option<&'static StepKindInfo> {
    STEP_KINDS.iter().find(|k| k.name == name)
}

/// The kinds that accept `modifier`, for the message that refuses it elsewhere.
pub fn kinds_accepting(modifier: &str) -> Vec<&'static str> {
    STEP_KINDS
        .iter()
        .filter(|k| k.modifiers.contains(&modifier))
        .map(|k| k.name)
        .collect()
}

/// `name` followed by a step's argument, the label most kinds get.
fn label(info: &StepKindInfo, argument: &str) -> String {
    format!("{} {argument}", info.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_modifier_is_known_and_used() {
        let mut names: Vec<&str> = STEP_KINDS.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), STEP_KINDS.len());
        for k in STEP_KINDS {
            for m in k.modifiers {
                assert!(KIND_MODIFIERS.contains(m), "{}: {m}", k.name);
            }
        }
        for m in KIND_MODIFIERS {
            assert!(!kinds_accepting(m).is_empty(), "{m} applies to nothing");
        }
    }

    #[test]
    fn each_kind_is_named_as_its_module_and_key() {
        let names: Vec<&str> = STEP_KINDS.iter().map(|k| k.name).collect();
        let modules: Vec<&str> = MODULE_NAMES
            .iter()
            .map(|m| m.trim_start_matches("r#"))
            .collect();
        assert_eq!(names, modules);
    }
}
