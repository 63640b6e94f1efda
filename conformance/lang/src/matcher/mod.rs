//! JSON subset matching with `$` operators: how a scenario's `expect:` is compared with what a
//! server actually sent.
//!
//! Servers are free to add fields, so a pattern states only what the scenario cares about:
//!
//! - scalars match by equality, numbers numerically (`1` matches `1.0`);
//! - a plain object matches any object that has at least its keys, each matching
//!   (extra keys are fine); a missing key is a mismatch unless its pattern accepts absence
//!   (see below);
//! - a plain array matches an array of the same length, element by element;
//! - an object whose keys all start with `$` is an *operator object*: every operator in it must
//!   hold. Mixing `$` keys with plain keys is a [`PatternError`]; a literal key that starts with
//!   `$` is written with a doubled dollar (`$$ref` matches the key `$ref`).
//!
//! Operators: `$regex`, `$type`, `$absent`, `$any`, `$len`, `$contains`, `$gte`, `$lte`, `$gt`,
//! `$lt`, `$exact`, `$one_of`, `$not`, `$each`, `$unordered`, `$has_keys`, `$keys`, `$json`,
//! `$schema` (valid against an inline JSON Schema), `$is_schema` (itself a valid JSON Schema)
//! and `$increasing` (array elements, or one member of each, strictly increasing numbers).
//!
//! **Missing keys.** A missing key is treated as a value that only `$absent: true` accepts,
//! and the combinators pass it through unchanged. So `$not: P` accepts a missing key whenever
//! `P` rejects it (`{$not: "error"}` holds when the key is absent), and `$one_of` accepts it when
//! one of its options does (`$one_of: [{$absent: true}, {$type: string}]` is an optional
//! string). Every other operator, and every literal, object or array pattern, needs the key.
//!
//! Patterns are validated once ([`check_pattern`] or [`Pattern::compile`]) before any server
//! runs, so a typo in a scenario is reported as a scenario error rather than a failed server.
//! Paths in reports read like `$.structured.approval.request_id` and `$.content[0].text`; a
//! key that is not a simple name is written `$["a key"]`, and a step into the JSON carried by
//! a string (`$json`) is written `<json>`, as in `$.content[0].text<json>.id`.

mod compare;
mod compile;
mod eval;
mod fail;
mod order;
mod path;
mod render;
mod schema;
#[cfg(test)]
mod tests;
mod text;

pub use text::type_name;
mod unordered;

use path::Path;
use serde_json::Value;

/// A pattern that failed validation (an unknown `$` operator, a bad regex, mixing operators
/// and plain keys...).
///
/// `path` points into the pattern as written, operators included (`$.result.$len`), so the
/// author can find the offending spot in the scenario file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {path}: {message}")]
pub struct PatternError {
    /// Where in the pattern, e.g. `$.content[0].$regex`.
    pub path: String,
    /// What is wrong, phrased for the scenario author.
    pub message: String,
}

/// Where and why an actual value did not match.
///
/// Carries the sub-pattern and the sub-value at `path` rather than the whole documents, so a
/// report can show exactly the part that differs (see [`explain()`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("at {path}: {reason}")]
pub struct Mismatch {
    /// Where in the actual value, e.g. `$.content[0].text`.
    pub path: String,
    /// The sub-pattern that did not hold at `path`.
    pub expected: Value,
    /// The actual value at `path`; `None` when the key is missing.
    pub actual: Option<Value>,
    /// Why it did not match, in one line.
    pub reason: String,
}

/// A validated pattern, ready to be matched any number of times.
///
/// [`matches()`] validates its pattern on every call; a runner that matches the same `expect:`
/// repeatedly (polling with `until:`) can compile it once with this type instead.
#[derive(Debug, Clone)]
pub struct Pattern {
    root: compile::Node,
}

impl Pattern {
    /// Validates `pattern` and prepares it (regexes included) for matching.
    pub fn compile(pattern: &Value) -> Result<Self, PatternError> {
        Ok(Pattern {
            root: compile::compile(pattern, &Path::ROOT)?,
        })
    }

    /// The pattern as written.
    pub fn as_json(&self) -> &Value {
        &self.root.source
    }

    /// Matches `actual` against this pattern; on failure, says where and why.
    // The interface returns the full `Mismatch` by value: failures are the cold path and the
    // caller needs every field for its report.
    #[allow(clippy::result_large_err)]
    pub fn matches(&self, actual: &Value) -> Result<(), Mismatch> {
        eval::eval(&self.root, Some(actual), &Path::ROOT).map_err(|f| f.mismatch)
    }
}

/// Validates a pattern once, before any server runs, so a typo in a scenario is a scenario
/// error, not a failed server.
///
/// Checks recursively for unknown operators, wrong argument types (`$len: "x"`,
/// `$type: "strng"`), invalid regexes, `$absent`/`$any` other than `true`, and objects that mix
/// operators with plain keys.
pub fn check_pattern(pattern: &Value) -> Result<(), PatternError> {
    Pattern::compile(pattern).map(drop)
}

/// Matches `actual` against `pattern` (see the module documentation for the language).
///
/// An invalid pattern never matches: it yields a `Mismatch` at `$` whose reason carries the
/// [`PatternError`]. Callers should run [`check_pattern`] first to report it as what it is.
#[allow(clippy::result_large_err)] // see `Pattern::matches`
pub fn matches(pattern: &Value, actual: &Value) -> Result<(), Mismatch> {
    match Pattern::compile(pattern) {
        Ok(compiled) => compiled.matches(actual),
        Err(e) => Err(Mismatch {
            path: "$".to_owned(),
            expected: pattern.clone(),
            actual: Some(actual.clone()),
            reason: format!("invalid pattern: {e}"),
        }),
    }
}

/// A readable multi-line explanation for a failure report: the path, the reason, and a line
/// diff (unified, via `similar`) of the pretty-printed expected sub-pattern against the
/// pretty-printed actual sub-value.
///
/// A missing key is diffed against nothing (the header says `actual (key is missing)`). The
/// result has no trailing newline, so callers can indent or embed it.
pub fn explain(m: &Mismatch) -> String {
    render::explain(m)
}
