//! What the step kinds share in a raw step: the kind-specific modifiers (`args`, `nowait`,
//! `within`...), handed to a kind's `build` once validation has checked they apply to it, and
//! the raw values several kinds write (no argument, a pattern, a list of steps).

use super::RawStep;
use indexmap::IndexMap;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_saphyr::Spanned;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Every kind-specific modifier, in a stable order (for messages and the check of the README).
pub const KIND_MODIFIERS: [&str; 14] = [
    "args",
    "params",
    "meta",
    "progress",
    "rounds",
    "answer_inputs",
    "nowait",
    "until",
    "stdin",
    "env",
    "within",
    "every",
    "newline",
    "skip_unless",
];

/// The kind-specific modifiers of a step, taken out of it for its kind's `build` (patterns
/// already checked). `within`, `every` and `skip_unless` stay with the step: the engine reads
/// them for every kind that accepts them.
#[derive(Debug, Default)]
pub struct Modifiers {
    pub args: Option<Value>,
    pub params: Option<Value>,
    pub meta: Option<Value>,
    pub progress: Option<bool>,
    pub rounds: Option<u32>,
    pub answer_inputs: Option<super::request::AnswerInputs>,
    pub nowait: Option<String>,
    pub until: Option<Value>,
    pub stdin: Option<String>,
    pub env: Option<BTreeMap<String, String>>,
    pub newline: Option<bool>,
}

impl RawStep {
    /// Which kind-specific modifiers are written, in the order of [`KIND_MODIFIERS`].
    pub fn modifier_flags(&self) -> [(&'static str, bool); 14] {
        [
            ("args", self.args.is_some()),
            ("params", self.params.is_some()),
            ("meta", self.meta.is_some()),
            ("progress", self.progress.is_some()),
            ("rounds", self.rounds.is_some()),
            ("answer_inputs", self.answer_inputs.is_some()),
            ("nowait", self.nowait.is_some()),
            ("until", self.until.is_some()),
            ("stdin", self.stdin.is_some()),
            ("env", self.env.is_some()),
            ("within", self.within.is_some()),
            ("every", self.every.is_some()),
            ("newline", self.newline.is_some()),
            ("skip_unless", self.skip_unless.is_some()),
        ]
    }

    /// Moves the modifiers a kind's `build` takes out of the step; `until` comes checked.
    pub(crate) fn take_modifiers(&mut self, until: Option<Value>) -> Modifiers {
        Modifiers {
            args: self.args.take(),
            params: self.params.take(),
            meta: self.meta.take(),
            progress: self.progress.take(),
            rounds: self.rounds.take(),
            answer_inputs: self.answer_inputs.take(),
            nowait: self.nowait.take(),
            until,
            stdin: self.stdin.take(),
            env: self.env.take(),
            newline: self.newline.take(),
        }
    }
}

/// How a kind key written without a value (`- stop:`) reads: present with its default for
/// the kinds whose value is optional, absent (so "a step needs one kind key") otherwise.
pub trait KindValue: Sized {
    /// The value of a key written empty, if the kind has one.
    fn when_written_empty() -> Option<Self> {
        None
    }
}

/// Deserializes a kind key's value, honouring [`KindValue::when_written_empty`].
pub(super) fn kind_value<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + KindValue,
{
    Ok(Option::<T>::deserialize(d)?.or_else(T::when_written_empty))
}

impl KindValue for String {}
impl KindValue for Vec<String> {}
impl KindValue for IndexMap<String, Value> {}

/// A kind key that takes no arguments: write `{}` or nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

impl KindValue for NoArgs {
    fn when_written_empty() -> Option<Self> {
        Some(NoArgs {})
    }
}

/// A pattern written as a kind's value (`expect_message`, `no_message`), with its position.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct RawPattern(pub Spanned<Value>);

impl KindValue for RawPattern {}

impl JsonSchema for RawPattern {
    fn schema_name() -> Cow<'static, str> {
        Value::schema_name()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        Value::json_schema(generator)
    }
    fn inline_schema() -> bool {
        true
    }
}

/// Steps written as a kind's value (`parallel`), each with its position.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct RawSteps(pub Vec<Spanned<RawStep>>);

impl KindValue for RawSteps {}

impl JsonSchema for RawSteps {
    fn schema_name() -> Cow<'static, str> {
        Vec::<RawStep>::schema_name()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        Vec::<RawStep>::json_schema(generator)
    }
    fn inline_schema() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_name_every_modifier_in_order() {
        let names = RawStep::default().modifier_flags().map(|(name, _)| name);
        assert_eq!(names, KIND_MODIFIERS);
    }
}
