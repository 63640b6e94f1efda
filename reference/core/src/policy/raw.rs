//! The policy file exactly as written (serde structs, no judgement). Validation into the
//! types the evaluator uses happens in the sibling modules via `TryFrom`, so nothing can hold
//! a policy that was parsed but not checked.
//!
//! Unknown keys are refused: in a safety policy a misspelt `denylst` silently ignored would
//! widen what is allowed.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The whole `policy.toml`, shared by both servers.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    /// Shared audit trail path.
    pub audit_log: Option<String>,
    /// `"closed"` or `"open"`.
    pub audit_fail_mode: Option<String>,
    /// Shared redaction settings.
    #[serde(default)]
    pub redaction: RawRedaction,
    /// The terminal server's section.
    #[serde(default)]
    pub terminal: RawTerminal,
    /// The files server's section.
    #[serde(default)]
    pub files: RawFiles,
}

/// `[redaction]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRedaction {
    /// Master switch (default true).
    pub enabled: Option<bool>,
    /// High-entropy fallback (default false; not supported by this implementation).
    pub entropy_fallback: Option<bool>,
    /// Operator patterns.
    #[serde(default)]
    pub extra_patterns: Vec<RawPattern>,
}

/// One `{ name = "...", regex = "..." }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPattern {
    /// Label used in errors.
    pub name: String,
    /// The regex (Rust `regex` syntax).
    pub regex: String,
}

/// `[terminal]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTerminal {
    /// The directory commands run in (and below).
    pub jail_root: Option<String>,
    /// `[terminal.limits]`.
    #[serde(default)]
    pub limits: RawLimits,
    /// `[terminal.allowlist]`.
    #[serde(default)]
    pub allowlist: RawCommandList,
    /// `[terminal.denylist]`.
    #[serde(default)]
    pub denylist: RawCommandList,
    /// `[[terminal.rules]]`.
    #[serde(default)]
    pub rules: Vec<RawRule>,
}

/// `[terminal.limits]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    /// Wall-clock limit per command (default 30).
    pub timeout_seconds: Option<f64>,
    /// Output cap per stream after redaction (default 65536).
    pub max_output_bytes: Option<u64>,
}

/// `commands = [...]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCommandList {
    /// Bare command names.
    #[serde(default)]
    pub commands: Vec<String>,
}

/// One `[[terminal.rules]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRule {
    /// The command the rule is about.
    pub command: String,
    /// Argument sequences that deny the command.
    #[serde(default)]
    pub deny_args: Vec<String>,
    /// Why (shown to the caller on a denial).
    pub reason: Option<String>,
}

/// `[files]` (validated only structurally until the files server exists).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFiles {
    /// The workspace the organizer works in.
    pub workspace_root: Option<String>,
    /// Undo/redo journal path.
    pub journal: Option<String>,
    /// Largest plan.
    pub max_plan_moves: Option<u64>,
    /// Category name -> extensions.
    #[serde(default)]
    pub categories: BTreeMap<String, Vec<String>>,
    /// `[[files.skip]]`.
    #[serde(default)]
    pub skip: Vec<RawSkip>,
}

/// One `[[files.skip]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSkip {
    /// `"protection"` or `"restraint"`; required, no default.
    pub layer: Option<String>,
    /// Conditions.
    #[serde(default)]
    pub when: Vec<String>,
    /// Why.
    pub reason: Option<String>,
}
