//! Tool-name masks for `tools.include` and `tools.exclude`.
//!
//! A mask without `*` matches exactly one name. `*` matches zero or more characters; the
//! mask always covers the whole name (no implicit substring match) and comparison is
//! case-sensitive. There is no escape: a literal `*` in a tool name is refused elsewhere, so
//! `*` is never both data and syntax.

/// Why a mask was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaskError {
    /// An empty mask matches nothing a server can advertise.
    #[error("a tool mask must not be empty")]
    Empty,
}

/// A compiled `include`/`exclude` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMask {
    /// The literal text before the first `*` (the whole mask when there is none).
    head: String,
    /// The literal runs between `*`s, in order, empty runs removed.
    middle: Vec<String>,
    /// The literal text after the last `*`; `None` when the mask has no `*`.
    tail: Option<String>,
}

impl TryFrom<String> for ToolMask {
    type Error = MaskError;

    fn try_from(raw: String) -> Result<Self, Self::Error> {
        if raw.is_empty() {
            return Err(MaskError::Empty);
        }
        let mut parts: Vec<&str> = raw.split('*').collect();
        let (head, middle, tail) = if parts.len() == 1 {
            (raw, Vec::new(), None)
        } else {
            let tail = parts.pop().unwrap_or_default().to_owned();
            let head = parts.remove(0).to_owned();
            let middle = parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
            (head, middle, Some(tail))
        };
        Ok(Self { head, middle, tail })
    }
}

impl ToolMask {
    /// Whether the mask covers the whole of `name`.
    pub fn matches(&self, name: &str) -> bool {
        let Some(tail) = &self.tail else {
            return name == self.head;
        };
        let Some(rest) = name.strip_prefix(self.head.as_str()) else {
            return false;
        };
        // The head and the tail must not overlap: both are fixed at their ends.
        let Some(mut rest) = rest.strip_suffix(tail.as_str()) else {
            return false;
        };
        // Leftmost matching of each middle run is optimal: it leaves the most room for the
        // runs after it, and the `*`s absorb whatever lies between.
        for run in &self.middle {
            match rest.find(run.as_str()) {
                Some(at) => rest = &rest[at + run.len()..],
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn mask(raw: &str) -> ToolMask {
        ToolMask::try_from(raw.to_owned()).expect("valid mask")
    }

    #[test]
    fn documented_examples() {
        assert!(mask("list_*").matches("list_issues"));
        assert!(mask("list_*").matches("list_"));
        assert!(!mask("list_*").matches("a_list_issues"));
        assert!(mask("*webhook").matches("publish_webhook"));
        assert!(mask("*webhook").matches("webhook"));
        assert!(!mask("*webhook").matches("webhooks"));
        assert!(mask("read_*shot").matches("read_screenshot"));
        assert!(!mask("read_*shot").matches("read_screenshots"));
        assert!(mask("create_comment").matches("create_comment"));
        assert!(!mask("create_comment").matches("create_comments"));
        assert!(!mask("Create_comment").matches("create_comment"));
        assert!(mask("*").matches(""));
        assert!(mask("**").matches("anything"));
        assert!(!mask("ab*ba").matches("aba"));
        assert!(mask("ab*ba").matches("abba"));
        assert!(mask("a*b*c").matches("abc"));
        assert!(!mask("a*b*c").matches("acb"));
    }

    /// Each middle run consumes what it matched: two runs need two occurrences, even when
    /// the first one sits right at the start of what is left (a mutant that advanced by
    /// `at * len` instead of `at + len` matched `tabz` here and survived the property test).
    #[test]
    fn repeated_middle_runs_need_separate_occurrences() {
        assert!(!mask("t*ab*ab*z").matches("tabz"));
        assert!(mask("t*ab*ab*z").matches("tababz"));
        assert!(!mask("*ab*ab*").matches("ab"));
        assert!(mask("*ab*ab*").matches("xabyabz"));
    }

    #[test]
    fn an_empty_mask_is_refused() {
        assert_eq!(ToolMask::try_from(String::new()), Err(MaskError::Empty));
    }

    /// The reference semantics: `*` is `.*`, everything else literal, anchored at both ends.
    fn reference(mask: &str, name: &str) -> bool {
        let pattern: Vec<String> = mask.split('*').map(regex::escape).collect();
        let re = regex::Regex::new(&format!("^(?s:{})$", pattern.join(".*"))).expect("regex");
        re.is_match(name)
    }

    fn alphabet() -> impl Strategy<Value = String> {
        // A small alphabet makes overlaps and repeats (the hard cases) likely; `é` and `.`
        // check multi-byte and regex-special characters.
        proptest::string::string_regex("[ab_.é]{0,8}").expect("strategy")
    }

    fn mask_text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[ab_.é*]{1,8}").expect("strategy")
    }

    proptest! {
        #[test]
        fn agrees_with_the_anchored_regex(m in mask_text(), name in alphabet()) {
            prop_assert_eq!(mask(&m).matches(&name), reference(&m, &name), "mask {:?} name {:?}", m, name);
        }

        #[test]
        fn a_mask_without_star_is_exact(name in alphabet(), other in alphabet()) {
            prop_assume!(!name.is_empty());
            prop_assert!(mask(&name).matches(&name));
            prop_assert_eq!(mask(&name).matches(&other), name == other);
        }

        #[test]
        fn a_star_between_parts_matches_any_filling(a in alphabet(), fill in alphabet(), b in alphabet()) {
            let m = format!("{a}*{b}");
            let name = format!("{a}{fill}{b}");
            prop_assert!(mask(&m).matches(&name));
        }
    }
}
