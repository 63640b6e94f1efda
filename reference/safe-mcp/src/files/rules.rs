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

impl Rules {
    /// From `[files]` (layers already validated by the core policy loader).
    pub fn from_raw(raw: &RawFiles) -> Result<Rules, String> {
        let mut categories = Vec::new();
        for (name, exts) in &raw.categories {
            if name.is_empty() || name.contains('/') || name == "." || name == ".." {
                return Err(format!("files.categories: {name:?} is not a folder name"));
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
                _ => return Err(format!("files.skip[{i}] has no valid layer")),
            };
            let mut when = Vec::new();
            for w in &s.when {
                when.push(
                    Condition::parse(w)
                        .ok_or_else(|| format!("files.skip[{i}] unknown condition {w:?}"))?,
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
