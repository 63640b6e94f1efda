//! Where in the policy file a key is written, so a message can name the file and the line:
//! the text parsed once more into TOML's spanned tree (`toml::de::DeTable`), and key paths
//! such as `terminal.rules[0].deny_args[1]` or `files.categories."a/b"` looked up in it.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A policy file's text, the name it is shown by, and its spanned tree (when it parses).
pub(crate) struct Document<'a> {
    file: String,
    text: &'a str,
    tree: Option<Spanned<DeTable<'a>>>,
}

/// Where a key is written: its line and, when the key itself is there (not only a table
/// above it), its value as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found<'a> {
    /// 1-based.
    pub line: usize,
    /// The value's source text (`"jail"`, `'x'`, `0`, `true`).
    pub written: Option<&'a str>,
}

/// One step of a key path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

impl<'a> Document<'a> {
    /// `text`, the content of the file named `path` as the operator gave it.
    pub(crate) fn new(path: &Path, text: &'a str) -> Self {
        Document {
            file: shown_path(path),
            text,
            tree: DeTable::parse(text).ok(),
        }
    }

    /// The file as messages name it.
    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// 1-based line and column (in characters) of the byte `offset`.
    pub(crate) fn position(&self, offset: usize) -> (usize, usize) {
        let mut at = offset.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let before = &self.text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    /// The text of line `line` (1-based), trimmed.
    pub(crate) fn line_text(&self, line: usize) -> &'a str {
        self.text
            .split('\n')
            .nth(line.saturating_sub(1))
            .unwrap_or("")
            .trim()
    }

    /// Where `key` is written, or the nearest table above it that is (a missing key's table).
    pub(crate) fn find(&self, key: &str) -> Option<Found<'a>> {
        let tree = self.tree.as_ref()?;
        let steps = parse_key(key)?;
        let mut span: Option<Range<usize>> = None;
        let mut current: Option<&Spanned<DeValue<'a>>> = None;
        for (i, step) in steps.iter().enumerate() {
            let next = match (step, current) {
                (Step::Key(k), None) => tree.get_ref().get(k.as_str()),
                (Step::Key(k), Some(v)) => v.get_ref().get(k.as_str()),
                (Step::Index(n), Some(v)) => v.get_ref().get(*n),
                (Step::Index(_), None) => None,
            };
            let Some(next) = next else {
                return span.map(|s| Found {
                    line: self.position(s.start).0,
                    written: None,
                });
            };
            span = Some(next.span());
            current = Some(next);
            if i + 1 == steps.len() {
                let s = next.span();
                return Some(Found {
                    line: self.position(s.start).0,
                    written: self.text.get(s),
                });
            }
        }
        None
    }
}

/// A path as messages show it: as given, quoted (with escapes) only when it holds a control
/// character or is not UTF-8, so a message stays one line.
pub(crate) fn shown_path(path: &Path) -> String {
    match path.to_str() {
        Some(s) if !s.chars().any(char::is_control) && !s.is_empty() => s.to_string(),
        _ => format!("{:?}", path.as_os_str()),
    }
}

/// `a.b[0]."c d".e` as steps; `None` for a path this module never builds.
fn parse_key(key: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = key;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']')?;
            steps.push(Step::Index(after[..close].parse().ok()?));
            rest = &after[close + 1..];
        } else if let Some(after) = rest.strip_prefix('"') {
            let (name, used) = quoted(after)?;
            steps.push(Step::Key(name));
            rest = &after[used..];
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(rest[..end].to_string()));
            rest = &rest[end..];
        }
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    Some(steps)
}

/// The name inside a quoted key (after its opening quote) and the bytes taken, closing quote
/// included; `\"` and `\\` are the escapes Rust's `{:?}` writes in names like these.
fn quoted(after: &str) -> Option<(String, usize)> {
    let mut name = String::new();
    let mut chars = after.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((name, i + 1)),
            '\\' => name.push(chars.next()?.1),
            c => name.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "audit_log = \"a.jsonl\"\n\n[terminal]\njail_root = 'jail'\n\n[[terminal.rules]]\ncommand = \"git\"\ndeny_args = [\"push -f\", \" \"]\n\n[files.categories]\n\"a/b\" = [\".pdf\"]\n";

    fn doc() -> Document<'static> {
        Document::new(Path::new("policy.toml"), TEXT)
    }

    #[test]
    fn keys_are_found_with_their_line_and_value_as_written() {
        let d = doc();
        let found = |k: &str| d.find(k).map(|f| (f.line, f.written));
        assert_eq!(found("audit_log"), Some((1, Some("\"a.jsonl\""))));
        assert_eq!(found("terminal.jail_root"), Some((4, Some("'jail'"))));
        assert_eq!(
            found("terminal.rules[0].deny_args[1]"),
            Some((8, Some("\" \"")))
        );
        assert_eq!(
            found("files.categories.\"a/b\""),
            Some((11, Some("[\".pdf\"]")))
        );
    }

    #[test]
    fn a_missing_key_is_placed_at_the_table_above_it() {
        let d = doc();
        let f = d
            .find("terminal.rules[0].reason")
            .expect("the rule is there");
        assert_eq!(f.written, None);
        assert!((6..=8).contains(&f.line), "{f:?}");
        assert_eq!(d.find("redaction.enabled"), None);
    }

    #[test]
    fn positions_lines_and_paths() {
        let d = doc();
        assert_eq!(d.position(0), (1, 1));
        assert_eq!(d.position(TEXT.find("jail_root").expect("there")), (4, 1));
        assert_eq!(d.line_text(4), "jail_root = 'jail'");
        assert_eq!(shown_path(Path::new("dir/p.toml")), "dir/p.toml");
        assert_eq!(shown_path(Path::new("a\nb")), "\"a\\nb\"");
        assert_eq!(parse_key("a..b"), None);
    }
}
