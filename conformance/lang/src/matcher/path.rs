//! Paths such as `$.structured.approval.request_id` and `$.content[0].text`.
//!
//! A path is a chain of stack-allocated links that is rendered to a string only when a
//! mismatch or a pattern error is reported: matching a large value allocates nothing for the
//! branches that succeed, and `$one_of` / `$not` can try alternatives cheaply.

use std::fmt::Write as _;

/// One step from a parent value to a child.
#[derive(Debug, Clone, Copy)]
enum Seg<'a> {
    /// An object member (for pattern paths, the key as the author wrote it).
    Key(&'a str),
    /// An array element.
    Index(usize),
    /// Into the JSON document carried by a string (`$json`), rendered `<json>`.
    Json,
}

/// A position inside a JSON value (or inside a pattern, for [`super::PatternError`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Option<Seg<'a>>,
    depth: usize,
}

impl<'a> Path<'a> {
    /// The root, `$`.
    pub(super) const ROOT: Path<'static> = Path {
        parent: None,
        seg: None,
        depth: 0,
    };

    fn child(&'a self, seg: Seg<'a>) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Some(seg),
            depth: self.depth + 1,
        }
    }

    /// The member `key` of the object at this path.
    pub(super) fn key(&'a self, key: &'a str) -> Path<'a> {
        self.child(Seg::Key(key))
    }

    /// The element `index` of the array at this path.
    pub(super) fn index(&'a self, index: usize) -> Path<'a> {
        self.child(Seg::Index(index))
    }

    /// The document parsed from the JSON string at this path.
    pub(super) fn json(&'a self) -> Path<'a> {
        self.child(Seg::Json)
    }

    /// Renders the path: `$`, `.key` for simple keys, `["odd key"]` otherwise, `[3]`, `<json>`.
    pub(super) fn render(&self) -> String {
        let mut segs = Vec::with_capacity(self.depth);
        let mut cur = Some(self);
        while let Some(p) = cur {
            if let Some(seg) = p.seg {
                segs.push(seg);
            }
            cur = p.parent;
        }
        let mut out = String::from("$");
        for seg in segs.iter().rev() {
            match seg {
                Seg::Key(k) if is_shorthand(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Seg::Key(k) => {
                    // A JSON string literal is an unambiguous, escaped spelling of any key.
                    let _ = write!(out, "[{}]", serde_json::Value::from(*k));
                }
                Seg::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
                Seg::Json => out.push_str("<json>"),
            }
        }
        out
    }
}

/// Keys that read unambiguously after a dot: `request_id`, `$ref`, `content-type`.
fn is_shorthand(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '-'))
}
