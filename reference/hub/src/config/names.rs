//! Validated names from the configuration: instance ids and outward prefixes.
//!
//! Both may contain only ASCII letters, digits, `-` and `_`. `.` in particular is refused: it
//! joins a prefix to a tool name, so a dotted prefix would make outward names ambiguous.

use std::fmt;

/// Why a name was refused (the caller adds the key and the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is empty.
    #[error("must not be empty")]
    Empty,
    /// The name contains `.`, which is reserved for `prefix.tool`.
    #[error("`{0}` must not contain `.` (it separates a prefix from the tool name)")]
    Dot(String),
    /// The name contains another character outside the allowed set.
    #[error("`{0}` may contain only ASCII letters, digits, `-` and `_`")]
    Charset(String),
}

fn check(value: String) -> Result<String, NameError> {
    if value.is_empty() {
        Err(NameError::Empty)
    } else if value.contains('.') {
        Err(NameError::Dot(value))
    } else if !value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Err(NameError::Charset(value))
    } else {
        Ok(value)
    }
}

/// The key of a `[servers.<instance_id>]` table: names an upstream in logs and errors.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InstanceId(String);

/// An outward name prefix: tool `search` of an upstream with prefix `gh` is `gh.search`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Prefix(String);

impl TryFrom<String> for InstanceId {
    type Error = NameError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        check(value).map(Self)
    }
}

impl TryFrom<String> for Prefix {
    type Error = NameError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        check(value).map(Self)
    }
}

impl InstanceId {
    /// The id as written in the file.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Prefix {
    /// The outward name of upstream tool `tool`.
    pub fn apply(&self, tool: &str) -> String {
        let mut name = String::with_capacity(self.0.len() + 1 + tool.len());
        name.push_str(&self.0);
        name.push('.');
        name.push_str(tool);
        name
    }
}

impl fmt::Display for InstanceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_accept_letters_digits_dash_and_underscore_only() {
        for ok in ["gh", "gh_admin", "a-1", "X9"] {
            assert!(InstanceId::try_from(ok.to_owned()).is_ok(), "{ok}");
            assert!(Prefix::try_from(ok.to_owned()).is_ok(), "{ok}");
        }
        assert_eq!(Prefix::try_from(String::new()), Err(NameError::Empty));
        assert_eq!(
            Prefix::try_from("g.h".to_owned()),
            Err(NameError::Dot("g.h".into()))
        );
        for bad in ["a b", "ü", "a/b", "a*"] {
            assert_eq!(
                InstanceId::try_from(bad.to_owned()),
                Err(NameError::Charset(bad.into()))
            );
        }
    }

    #[test]
    fn a_prefix_joins_with_a_dot() {
        let prefix = Prefix::try_from("gh".to_owned()).expect("valid");
        assert_eq!(prefix.apply("search"), "gh.search");
    }
}
