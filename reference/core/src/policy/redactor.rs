//! The one redactor both servers use: operator patterns from `[redaction]` plus the core's
//! built-in credential patterns ([`crate::redact`]), and the only way output leaves the
//! server: redact first, then truncate, so a secret cut by the cap cannot leak its prefix.

use std::borrow::Cow;

use regex::Regex;

use super::error::PolicyError;
use super::raw::RawRedaction;
use crate::redact::{REDACTED, redact_str};

/// Validated `[redaction]`.
#[derive(Debug, Clone)]
pub struct Redactor {
    enabled: bool,
    extra: Vec<(String, Regex)>,
}

impl TryFrom<&RawRedaction> for Redactor {
    type Error = PolicyError;
    fn try_from(raw: &RawRedaction) -> Result<Self, PolicyError> {
        if raw.entropy_fallback == Some(true) {
            return Err(PolicyError::Value {
                key: "redaction.entropy_fallback".into(),
                value: Some("true".into()),
                problem: "is not supported by this implementation (remove it or set it to false)"
                    .into(),
            });
        }
        let mut extra = Vec::new();
        for (i, p) in raw.extra_patterns.iter().enumerate() {
            let key = format!("redaction.extra_patterns[{i}].regex");
            if p.regex.is_empty() {
                return Err(PolicyError::string(
                    key,
                    &p.regex,
                    format!("is empty and would match everywhere (pattern {:?})", p.name),
                ));
            }
            let re = Regex::new(&p.regex).map_err(|e| {
                let why = e.to_string();
                let why = why.lines().last().unwrap_or("").trim();
                let why = why.strip_prefix("error: ").unwrap_or(why);
                PolicyError::string(
                    key,
                    &p.regex,
                    format!("does not compile (pattern {:?}): {why}", p.name),
                )
            })?;
            extra.push((p.name.clone(), re));
        }
        Ok(Redactor {
            enabled: raw.enabled.unwrap_or(true),
            extra,
        })
    }
}

/// Text after [`Redactor::redact_then_truncate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded {
    /// The redacted text, at most the cap in bytes.
    pub text: String,
    /// Whether anything was cut.
    pub truncated: bool,
}

impl Redactor {
    /// A redactor with the built-in patterns only, for tests and defaults.
    pub fn builtin() -> Self {
        Redactor {
            enabled: true,
            extra: Vec::new(),
        }
    }

    /// `s` with operator and built-in secret shapes replaced by `[REDACTED]`.
    pub fn redact<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(s);
        }
        let mut out: Cow<'a, str> = Cow::Borrowed(s);
        for (_, re) in &self.extra {
            if re.is_match(&out) {
                out = Cow::Owned(re.replace_all(&out, REDACTED).into_owned());
            }
        }
        match redact_str(&out) {
            Cow::Borrowed(_) => out,
            Cow::Owned(o) => Cow::Owned(o),
        }
    }

    /// Redacts `s`, then cuts the result to at most `cap` bytes on a character boundary.
    pub fn redact_then_truncate(&self, s: &str, cap: usize) -> Bounded {
        let red = self.redact(s);
        if red.len() <= cap {
            return Bounded {
                text: red.into_owned(),
                truncated: false,
            };
        }
        let mut end = cap;
        while !red.is_char_boundary(end) {
            end -= 1;
        }
        Bounded {
            text: red[..end].to_string(),
            truncated: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::raw::RawPattern;
    use proptest::prelude::*;

    fn with(patterns: &[(&str, &str)]) -> Result<Redactor, PolicyError> {
        Redactor::try_from(&RawRedaction {
            enabled: None,
            entropy_fallback: None,
            extra_patterns: patterns
                .iter()
                .map(|(n, r)| RawPattern {
                    name: n.to_string(),
                    regex: r.to_string(),
                })
                .collect(),
        })
    }

    #[test]
    fn operator_patterns_and_builtins_apply() {
        let r = with(&[("acme", r"ACME-[0-9]{6}")]).unwrap();
        let out = r.redact("id ACME-123456 and sk-abcdefghijklmnopqrstu end");
        assert_eq!(out, "id [REDACTED] and [REDACTED] end");
    }

    #[test]
    fn invalid_regex_is_an_error_naming_the_pattern() {
        let e = with(&[("bad", "(unclosed")]).unwrap_err();
        assert!(e.to_string().contains("\"bad\""), "{e}");
    }

    #[test]
    fn a_secret_cut_at_the_cap_never_leaks() {
        let r = with(&[("acme", r"ACME-[0-9]{12}")]).unwrap();
        let secret = "ACME-987654321012";
        for cap in 0..60 {
            let input = format!("{}{secret} trailing", "x".repeat(20));
            let b = r.redact_then_truncate(&input, cap);
            assert!(b.text.len() <= cap);
            assert!(!b.text.contains("ACME-9"), "cap {cap}: {}", b.text);
            assert!(!b.text.contains("98765"), "cap {cap}: {}", b.text);
        }
    }

    proptest! {
        #[test]
        fn truncation_respects_cap_and_char_boundaries(s in "\\PC{0,80}", cap in 0usize..100) {
            let b = Redactor::builtin().redact_then_truncate(&s, cap);
            prop_assert!(b.text.len() <= cap);
            prop_assert_eq!(b.truncated, Redactor::builtin().redact(&s).len() > cap);
        }
    }
}
