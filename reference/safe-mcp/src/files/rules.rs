//! The organizer's rules from `[files]`: categories (by extension) and the two skip layers.

use mcp_safety_core::policy::raw::RawFiles;

use super::fsops::Kind;
use crate::result::Code;

/// Extensions the `installer` condition matches (lowercase, without the dot).
pub const INSTALLER_EXTENSIONS: &[&str] = &[
    "exe", "msi", "dmg", "pkg", "deb", "rpm", "appimage", "app", "apk", "msix", "appx",
];

/// The reason a symlink never moves (built-in protection).
pub const SYMLINK_REASON: &str =
    "'organize' is not permitted by any rule (deny by default): a symlink never moves";

/// A `when` condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// A name starting with `.`.
    Dotfile,
    /// An installer or executable (by extension).
    Installer,
    /// A name with control characters, a leading `-` or surrounding whitespace.
    UnsafeName,
    /// A symbolic link.
    Symlink,
}

impl Condition {
    fn parse(s: &str) -> Option<Condition> {
        match s {
            "dotfile" => Some(Condition::Dotfile),
            "installer" => Some(Condition::Installer),
            "unsafe-name" => Some(Condition::UnsafeName),
            "symlink" => Some(Condition::Symlink),
            _ => None,
        }
    }

    fn matches(self, name: &str, kind: Kind) -> bool {
        match self {
            Condition::Dotfile => name.starts_with('.'),
            Condition::Installer => extension(name)
                .is_some_and(|e| INSTALLER_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str())),
            Condition::UnsafeName => {
                name.chars().any(char::is_control) || name.starts_with('-') || name.trim() != name
            }
            Condition::Symlink => kind == Kind::Symlink,
        }
    }
}

/// One `[[files.skip]]` rule.
#[derive(Debug, Clone)]
pub struct SkipRule {
    /// `true` for `layer = "protection"`.
    pub protection: bool,
    /// Any of these matches.
    pub when: Vec<Condition>,
    /// Why.
    pub reason: String,
}

/// What the organizer, acting unprompted, does with an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// File it (if a category matches).
    Move,
    /// Not a candidate at all (folders).
    Ignore,
    /// Skipped, with the code and reason.
    Skip {
        /// `POLICY_DENIED` (protection) or `NEEDS_EXPLICIT_REQUEST` (restraint).
        code: Code,
        /// The rule's reason.
        reason: String,
    },
}

/// Categories and skip rules.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    categories: Vec<(String, Vec<String>)>,
    skips: Vec<SkipRule>,
}

fn extension(name: &str) -> Option<&str> {
    let trimmed = name.trim_start_matches('.');
    trimmed.rsplit_once('.').map(|(_, e)| e)
}

/// A `[files]` value the organizer cannot use: the key's path in the file (for the line an
/// operator is shown), the value as TOML writes it, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// `files.categories."a/b"`, `files.skip[0].when[1]`.
    pub key: String,
    /// The value (`"bogus"`); `None` when the key itself is what is wrong (a category name).
    pub value: Option<String>,
    /// What is wrong with it.
    pub problem: String,
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            Some(value) => write!(f, "{} = {value} {}", self.key, self.problem),
            None => write!(f, "{} {}", self.key, self.problem),
        }
    }
}

impl std::error::Error for RuleError {}

/// `name` as a key segment: bare when TOML allows it, else quoted.
fn key_segment(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

impl Rules {
    /// From `[files]` (layers already validated by the core policy loader).
    pub fn from_raw(raw: &RawFiles) -> Result<Rules, RuleError> {
        let mut categories = Vec::new();
        for (name, exts) in &raw.categories {
            if name.is_empty() || name.contains('/') || name == "." || name == ".." {
                return Err(RuleError {
                    key: format!("files.categories.{}", key_segment(name)),
                    value: None,
                    problem: "is not a folder name (a category is one folder under the workspace: not empty, \".\" or \"..\", no \"/\")".into(),
                });
            }
            let exts = exts
                .iter()
                .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
                .collect();
            categories.push((name.clone(), exts));
        }
        let mut skips = Vec::new();
        for (i, s) in raw.skip.iter().enumerate() {
            let protection = match s.layer.as_deref() {
                Some("protection") => true,
                Some("restraint") => false,
                other => {
                    return Err(RuleError {
                        key: format!("files.skip[{i}].layer"),
                        value: other.map(|v| format!("{v:?}")),
                        problem: "must be \"protection\" or \"restraint\"".into(),
                    });
                }
            };
            let mut when = Vec::new();
            for (j, w) in s.when.iter().enumerate() {
                when.push(
                    Condition::parse(w).ok_or_else(|| RuleError {
                        key: format!("files.skip[{i}].when[{j}]"),
                        value: Some(format!("{w:?}")),
                        problem:
                            "is not a condition (use dotfile, installer, unsafe-name or symlink)"
                                .into(),
                    })?,
                );
            }
            skips.push(SkipRule {
                protection,
                when,
                reason: s
                    .reason
                    .clone()
                    .unwrap_or_else(|| "skipped by a [[files.skip]] rule".into()),
            });
        }
        Ok(Rules { categories, skips })
    }

    /// The category whose extensions include `name`'s.
    pub fn category(&self, name: &str) -> Option<String> {
        let ext = extension(name)?.to_ascii_lowercase();
        self.categories
            .iter()
            .find(|(_, exts)| exts.contains(&ext))
            .map(|(c, _)| c.clone())
    }

    /// The PROTECTION layer: `Some(reason)` if the entry must never move.
    pub fn protection(&self, name: &str, kind: Kind) -> Option<String> {
        if kind == Kind::Symlink {
            return Some(SYMLINK_REASON.into());
        }
        self.skips
            .iter()
            .find(|r| r.protection && r.when.iter().any(|c| c.matches(name, kind)))
            .map(|r| r.reason.clone())
    }

    /// Both layers, as `plan_organize` applies them.
    pub fn plan_verdict(&self, name: &str, kind: Kind) -> Verdict {
        if let Some(reason) = self.protection(name, kind) {
            return Verdict::Skip {
                code: Code::PolicyDenied,
                reason,
            };
        }
        if kind == Kind::Dir {
            return Verdict::Ignore;
        }
        if kind != Kind::File {
            return Verdict::Skip {
                code: Code::PolicyDenied,
                reason: "only regular files are filed".into(),
            };
        }
        if let Some(r) = self
            .skips
            .iter()
            .find(|r| !r.protection && r.when.iter().any(|c| c.matches(name, kind)))
        {
            return Verdict::Skip {
                code: Code::NeedsExplicitRequest,
                reason: r.reason.clone(),
            };
        }
        Verdict::Move
    }
}
