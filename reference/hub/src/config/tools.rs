//! Per-upstream tool curation: which original tool names are exposed, and which safety hints
//! are corrected.

use indexmap::IndexMap;

use crate::mask::ToolMask;

/// Which original upstream tool names an upstream exposes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Filter {
    /// No `include` and no `exclude`: every tool.
    #[default]
    All,
    /// `include` given (an allowlist; `exclude` is then ignored).
    Include(Vec<ToolMask>),
    /// Only `exclude` given (a denylist).
    Exclude(Vec<ToolMask>),
}

impl Filter {
    /// Builds the filter; `include` wins over `exclude` when both are present.
    pub fn new(include: Option<Vec<ToolMask>>, exclude: Option<Vec<ToolMask>>) -> Self {
        match (include, exclude) {
            (Some(include), _) => Filter::Include(include),
            (None, Some(exclude)) => Filter::Exclude(exclude),
            (None, None) => Filter::All,
        }
    }

    /// Whether the original upstream tool `name` is exposed.
    pub fn exposes(&self, name: &str) -> bool {
        match self {
            Filter::All => true,
            Filter::Include(masks) => masks.iter().any(|m| m.matches(name)),
            Filter::Exclude(masks) => !masks.iter().any(|m| m.matches(name)),
        }
    }
}

/// Corrections for one tool's safety hints; `None` keeps the upstream's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnnotationOverride {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `openWorldHint` (also written `external`, `external_side_effect`,
    /// `sends_external_data`).
    pub open_world: Option<bool>,
}

impl AnnotationOverride {
    /// The (annotation key, value) pairs this override sets.
    pub fn hints(&self) -> impl Iterator<Item = (&'static str, bool)> {
        [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("openWorldHint", self.open_world),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| (key, v)))
    }
}

/// Overrides by exact original tool name (never a mask: targets contain no `*`).
pub type Overrides = IndexMap<String, AnnotationOverride>;

#[cfg(test)]
mod tests {
    use super::*;

    fn masks(raw: &[&str]) -> Option<Vec<ToolMask>> {
        Some(
            raw.iter()
                .map(|m| ToolMask::try_from((*m).to_owned()).expect("mask"))
                .collect(),
        )
    }

    #[test]
    fn include_wins_over_exclude() {
        let filter = Filter::new(masks(&["read_*"]), masks(&["read_file"]));
        assert!(filter.exposes("read_file"));
        assert!(!filter.exposes("write_file"));
    }

    #[test]
    fn exclude_removes_matches_and_all_exposes_everything() {
        let filter = Filter::new(None, masks(&["*_admin", "drop"]));
        assert!(!filter.exposes("user_admin"));
        assert!(!filter.exposes("drop"));
        assert!(filter.exposes("dropped"));
        assert!(Filter::new(None, None).exposes("anything"));
    }

    #[test]
    fn an_empty_include_exposes_nothing() {
        assert!(!Filter::new(masks(&[]), None).exposes("echo"));
    }

    #[test]
    fn hints_lists_only_the_set_fields() {
        let o = AnnotationOverride {
            read_only: Some(false),
            destructive: None,
            open_world: Some(true),
        };
        let hints: Vec<_> = o.hints().collect();
        assert_eq!(hints, [("readOnlyHint", false), ("openWorldHint", true)]);
    }
}
