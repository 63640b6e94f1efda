//! The step kinds, described once: each kind's name, whether it observes something (so it
//! takes `expect` and `save`), and the kind-specific modifiers it accepts. Validation reads
//! its rules from here, and a test checks the README's step table against it, so a kind or a
//! modifier cannot be added in one place and forgotten in the other.

/// What a step kind is, as far as the language is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepKindInfo {
    /// The kind key a scenario writes (`call`, `admin`, ...).
    pub name: &'static str,
    /// True when the step yields an observation (`expect` and `save` apply).
    pub observes: bool,
    /// The kind-specific modifiers it accepts (besides `on`, `timeout`, `label`, `level`).
    pub modifiers: &'static [&'static str],
}

const fn kind(
    name: &'static str,
    observes: bool,
    modifiers: &'static [&'static str],
) -> StepKindInfo {
    StepKindInfo {
        name,
        observes,
        modifiers,
    }
}

/// Every step kind, in the order the README's step table lists them.
pub const STEP_KINDS: &[StepKindInfo] = &[
    kind("initialize", true, &[]),
    kind("list_tools", true, &[]),
    kind("call", true, &["args", "meta", "progress", "nowait"]),
    kind("await", true, &[]),
    kind("poll", true, &["until", "within", "every"]),
    kind("request", true, &["params", "meta", "nowait"]),
    kind("notify", false, &["params"]),
    kind("send", false, &["newline"]),
    kind("expect_message", true, &["within"]),
    kind("no_message", false, &["within"]),
    kind("no_response", false, &["within"]),
    kind("admin", true, &["stdin", "env"]),
    kind("exec", true, &["stdin", "within", "every"]),
    kind("file", true, &["within", "every"]),
    kind("processes", true, &["within", "every"]),
    kind("stderr", true, &["within", "every"]),
    kind("stdout", true, &["within", "every"]),
    kind("start", false, &[]),
    kind("restart", false, &[]),
    kind("stop", true, &["within"]),
    kind("wait_exit", true, &["within"]),
    kind("kill", false, &[]),
    kind("parallel", false, &[]),
    kind("set", false, &[]),
    kind("repeat", false, &[]),
    kind("contract", true, &[]),
];

/// Every kind-specific modifier, in a stable order (for messages and the check of the README).
pub const KIND_MODIFIERS: &[&str] = &[
    "args", "params", "meta", "progress", "nowait", "until", "stdin", "env", "within", "every",
    "newline",
];

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
}
