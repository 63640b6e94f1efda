//! The terminal policy: validated allowlist, denylist and `deny_args` rules, and the one
//! evaluator answering "may this argv run?".
//!
//! List entries and rule commands are bare names (`cat`, looked up on the child's PATH) or
//! absolute paths (`/usr/bin/cat`). Deny compares broadly, allow narrowly:
//!
//! - a relative path (`./x`, `bin/x`) is refused: it would resolve inside the jail, where
//!   files can be written;
//! - the denylist and `deny_args` rules match on the file name, so `rm` denies `/bin/rm`
//!   too, and `/bin/rm` denies `rm`;
//! - the allowlist matches the exact text: `cat` allows `cat`, `/usr/bin/cat` allows
//!   `/usr/bin/cat`, and neither allows the other.
//!
//! Order, whatever the order of entries in the file: denylist, then every `deny_args` rule,
//! then the allowlist, then deny by default. Any matching deny wins over any matching allow.

use std::collections::BTreeSet;
use std::time::Duration;

use super::error::PolicyError;
use super::raw::{RawLimits, RawRule, RawTerminal};

/// Default per-command wall-clock limit.
pub const DEFAULT_TIMEOUT_SECONDS: f64 = 30.0;
/// Default output cap per stream, applied after redaction.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 65536;
/// Largest accepted timeout (one day): beyond that a "limit" is no limit.
pub const MAX_TIMEOUT_SECONDS: f64 = 86_400.0;
/// Largest accepted output cap (16 MiB).
pub const MAX_OUTPUT_CAP: u64 = 16 * 1024 * 1024;

/// A validated `[[terminal.rules]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgRule {
    /// The command it applies to.
    pub command: String,
    /// Each entry is a token sequence; it matches when it appears contiguously in the args.
    pub deny_args: Vec<Vec<String>>,
    /// Shown on a denial.
    pub reason: String,
}

/// The validated `[terminal]` section (without `jail_root`, which is resolved by the loader).
#[derive(Debug, Clone, PartialEq)]
pub struct TerminalPolicy {
    /// Commands that may run when nothing denies them.
    pub allow: BTreeSet<String>,
    /// Commands that never run.
    pub deny: BTreeSet<String>,
    /// Argument rules.
    pub rules: Vec<ArgRule>,
    /// Per-command wall-clock limit.
    pub timeout: Duration,
    /// Per-stream output cap after redaction.
    pub max_output_bytes: usize,
}

/// The answer to one allow/deny question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Whether it may run.
    pub allowed: bool,
    /// Human-readable why, shown to the caller.
    pub reason: String,
}

impl Verdict {
    fn deny(reason: String) -> Self {
        Verdict {
            allowed: false,
            reason,
        }
    }
}

/// `raw`, the value of `key`, as a command: a bare name or an absolute path.
fn command_name(raw: &str, key: String) -> Result<String, PolicyError> {
    let c = raw.trim();
    let relative_path = c.contains('/') && !c.starts_with('/');
    if c.is_empty() || relative_path || c.ends_with('/') {
        return Err(PolicyError::string(
            key,
            raw,
            "must be a bare command name or an absolute path",
        ));
    }
    Ok(c.to_string())
}

/// The file-name part of a command (`/usr/bin/rm` -> `rm`; `rm` -> `rm`).
pub fn file_name(command: &str) -> &str {
    command.rsplit('/').next().unwrap_or(command)
}

impl ArgRule {
    /// `[[terminal.rules]]` entry number `index` (for the keys its errors name).
    fn from_raw(index: usize, raw: &RawRule) -> Result<Self, PolicyError> {
        let command = command_name(&raw.command, format!("terminal.rules[{index}].command"))?;
        let mut deny_args = Vec::new();
        for (j, d) in raw.deny_args.iter().enumerate() {
            let toks: Vec<String> = d.split_whitespace().map(str::to_string).collect();
            if toks.is_empty() {
                return Err(PolicyError::string(
                    format!("terminal.rules[{index}].deny_args[{j}]"),
                    d,
                    format!("is empty (in the rule for {command:?})"),
                ));
            }
            deny_args.push(toks);
        }
        let reason = raw
            .reason
            .clone()
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(|| format!("a rule denies these arguments to '{command}'"));
        Ok(ArgRule {
            command,
            deny_args,
            reason,
        })
    }
}

fn limits(raw: &RawLimits) -> Result<(Duration, usize), PolicyError> {
    let t = raw.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS);
    if !(t > 0.0 && t <= MAX_TIMEOUT_SECONDS) {
        return Err(PolicyError::Value {
            key: "terminal.limits.timeout_seconds".into(),
            value: Some(t.to_string()),
            problem: format!("must be in (0, {MAX_TIMEOUT_SECONDS}]"),
        });
    }
    let cap = raw
        .max_output_bytes
        .unwrap_or(DEFAULT_MAX_OUTPUT_BYTES as u64);
    if cap == 0 || cap > MAX_OUTPUT_CAP {
        return Err(PolicyError::Value {
            key: "terminal.limits.max_output_bytes".into(),
            value: Some(cap.to_string()),
            problem: format!("must be in [1, {MAX_OUTPUT_CAP}]"),
        });
    }
    Ok((Duration::from_secs_f64(t), cap as usize))
}

impl TryFrom<&RawTerminal> for TerminalPolicy {
    type Error = PolicyError;
    fn try_from(raw: &RawTerminal) -> Result<Self, PolicyError> {
        let allow = raw
            .allowlist
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| command_name(c, format!("terminal.allowlist.commands[{i}]")))
            .collect::<Result<_, _>>()?;
        let deny = raw
            .denylist
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| command_name(c, format!("terminal.denylist.commands[{i}]")))
            .collect::<Result<_, _>>()?;
        let rules = raw
            .rules
            .iter()
            .enumerate()
            .map(|(i, r)| ArgRule::from_raw(i, r))
            .collect::<Result<_, _>>()?;
        let (timeout, max_output_bytes) = limits(&raw.limits)?;
        Ok(TerminalPolicy {
            allow,
            deny,
            rules,
            timeout,
            max_output_bytes,
        })
    }
}

fn contains_seq(args: &[String], seq: &[String]) -> bool {
    !seq.is_empty() && args.windows(seq.len()).any(|w| w == seq)
}

impl TerminalPolicy {
    /// The verdict for `argv` (argv\[0\] is the command). Deny by default; a matching deny
    /// beats a matching allow.
    pub fn evaluate(&self, argv: &[String]) -> Verdict {
        let Some((cmd, args)) = argv.split_first() else {
            return Verdict::deny("the command is empty".into());
        };
        if cmd.is_empty() {
            return Verdict::deny("the command is empty".into());
        }
        if cmd.contains('/') && !cmd.starts_with('/') {
            return Verdict::deny(format!(
                "'{cmd}' is a relative path; name a command or give its absolute path"
            ));
        }
        let name = file_name(cmd);
        if self.deny.iter().any(|d| file_name(d) == name) {
            return Verdict::deny(format!("'{name}' is on the denylist"));
        }
        for rule in self.rules.iter().filter(|r| file_name(&r.command) == name) {
            if rule.deny_args.iter().any(|seq| contains_seq(args, seq)) {
                return Verdict::deny(rule.reason.clone());
            }
        }
        if self.allow.contains(cmd) {
            return Verdict {
                allowed: true,
                reason: format!("'{cmd}' is allowed"),
            };
        }
        Verdict::deny(format!("'{cmd}' is not on the allowlist (deny by default)"))
    }
}
