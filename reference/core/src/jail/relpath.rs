//! Parsing and normalizing workspace-relative paths; nothing here touches the filesystem.

use std::fmt;

use super::{JailError, MAX_COMPONENT_BYTES, MAX_PATH_BYTES};

/// A validated path relative to the workspace root.
///
/// Accepted: `/`-separated components; empty components and `.` are dropped (`a//./b` is
/// `a/b`); `""` and `"."` are the root itself (useful for listing). Refused: absolute paths
/// (`PATH_ABSOLUTE`), any `..` component even when it would stay inside
/// (`PATH_TRAVERSAL`), NUL bytes, backslashes (so a Windows-style `..\x` can never be
/// reinterpreted), over-long paths or components (`PATH_INVALID`).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath {
    normalized: String,
}

impl RelPath {
    /// The workspace root.
    pub fn root() -> Self {
        RelPath {
            normalized: String::new(),
        }
    }

    /// Parses and normalizes; see the type documentation for the rules.
    pub fn parse(raw: &str) -> Result<Self, JailError> {
        if raw.contains('\0') {
            return Err(JailError::PathInvalid {
                reason: "path contains a NUL byte",
            });
        }
        if raw.starts_with('/') {
            return Err(JailError::PathAbsolute);
        }
        if raw.contains('\\') {
            return Err(JailError::PathInvalid {
                reason: "path contains a backslash",
            });
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(JailError::PathInvalid {
                reason: "path is too long",
            });
        }
        let mut parts: Vec<&str> = Vec::new();
        for comp in raw.split('/') {
            match comp {
                "" | "." => {}
                ".." => return Err(JailError::PathTraversal),
                c if c.len() > MAX_COMPONENT_BYTES => {
                    return Err(JailError::PathInvalid {
                        reason: "path component is too long",
                    });
                }
                c => parts.push(c),
            }
        }
        Ok(RelPath {
            normalized: parts.join("/"),
        })
    }

    /// The normalized form (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.normalized
    }

    /// True for the workspace root.
    pub fn is_root(&self) -> bool {
        self.normalized.is_empty()
    }

    /// The components, in order.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.normalized.split('/').filter(|c| !c.is_empty())
    }

    /// The last component, or `None` for the root.
    pub fn file_name(&self) -> Option<&str> {
        self.components().last()
    }

    /// A human-readable form: `.` for the root, else the normalized path.
    pub fn display(&self) -> &str {
        if self.is_root() {
            "."
        } else {
            &self.normalized
        }
    }

    /// The parent components and the last one; `None` for the root.
    pub(super) fn split_parent(&self) -> Option<(Vec<&str>, &str)> {
        let mut comps: Vec<&str> = self.components().collect();
        let last = comps.pop()?;
        Some((comps, last))
    }
}

impl TryFrom<&str> for RelPath {
    type Error = JailError;
    fn try_from(raw: &str) -> Result<Self, JailError> {
        RelPath::parse(raw)
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display())
    }
}

impl fmt::Debug for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RelPath({:?})", self.normalized)
    }
}
