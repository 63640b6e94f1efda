//! How much a check weighs, and where its rule comes from.
//!
//! A verdict is only as good as the text it rests on. Every scenario of the built-in suites
//! names that text ([`Source`]: a document of the project or a page of the MCP specification,
//! with the sentence quoted) and says how binding it is ([`Level`]): a requirement fails the
//! run, a recommendation warns, and a guarantee stronger than the document (our reference's
//! choice) is reported apart so a third party can leave it out.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How binding a check is.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    Serialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A requirement of the document or the specification (MUST, "is", "never"). Failing it
    /// fails the run.
    #[default]
    Must,
    /// A SHOULD, or a practice clients widely expect. Failing it is reported as a warning;
    /// it fails the run only under `--strict`.
    Should,
    /// A guarantee stronger than the document that the reference implementation makes.
    /// Run by default and reported in its own section; `--no-beyond` leaves it out.
    Beyond,
}

impl Level {
    /// The name as written in scenario files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::Beyond => "beyond",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a run makes of the levels: `--strict` weighs `should` as `must`, `--no-beyond`
/// leaves `beyond` checks out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelPolicy {
    /// Warnings fail the run (`--strict`).
    pub strict: bool,
    /// Checks of level `beyond` run (the default; `--no-beyond` turns them off).
    pub beyond: bool,
}

impl Default for LevelPolicy {
    fn default() -> Self {
        LevelPolicy {
            strict: false,
            beyond: true,
        }
    }
}

impl LevelPolicy {
    /// True when checks of `level` run at all.
    pub fn runs(self, level: Level) -> bool {
        level != Level::Beyond || self.beyond
    }

    /// True when a check of `level` that does not hold is only a warning.
    pub fn warns(self, level: Level) -> bool {
        level == Level::Should && !self.strict
    }
}

/// The documents this project implements, by the names scenario sources use. Their text is
/// kept in `conformance/lang/documents/` and built in, so every quote from them is checked
/// against the text when a scenario is loaded.
pub const DOCUMENTS: &[&str] = &["toolhub", "safe-mcp-suite", "mcp-hub"];

/// The text of a document of [`DOCUMENTS`], as built in.
pub fn document_text(name: &str) -> Option<&'static str> {
    match name {
        "toolhub" => Some(include_str!("../../documents/toolhub.txt")),
        "safe-mcp-suite" => Some(include_str!("../../documents/safe-mcp-suite.txt")),
        "mcp-hub" => Some(include_str!("../../documents/mcp-hub.txt")),
        _ => None,
    }
}

/// True when `quote` stands in `text` word for word, whitespace aside; `...` or `…` in the
/// quote stands for words left out, so the parts must appear in order.
pub fn quoted_in(quote: &str, text: &str) -> bool {
    let text = normalize_whitespace(text);
    let mut from = 0;
    for part in quote.split("...").flat_map(|p| p.split('…')) {
        let part = normalize_whitespace(part);
        if part.is_empty() {
            continue;
        }
        match text[from..].find(&part) {
            Some(at) => from += at + part.len(),
            None => return false,
        }
    }
    true
}

/// The suites that enforce the project's documents, and `official` (the official
/// conformance suite's fixture requirements beside the specification's sentences):
/// `validate` refuses a scenario of theirs without a `source`. (Every built-in `protocol` scenario has one too, checked by a test;
/// a user's own protocol scenarios may go without.)
pub const SOURCED_SUITES: &[&str] = &[
    "toolhub",
    "safe-mcp-terminal",
    "safe-mcp-files",
    "hub",
    "official",
];

/// Where a scenario's rule is written, as the scenario file gives it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `toolhub`, `safe-mcp-suite` or `mcp-hub` (the project's documents), or the `https://`
    /// address of a specification page (the MCP specification, JSON-RPC 2.0).
    pub document: String,
    /// The heading the sentence stands under, where the document has headings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The sentence(s) the scenario enforces, quoted word for word (whitespace may differ).
    pub quote: String,
    /// What the scenario reads into the quote that the text does not say outright, if
    /// anything; a scenario resting on such an assumption uses level `should` or `beyond`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assumes: Option<String>,
}

impl Source {
    /// Checks the fields that do not need the document's text: a known document or an
    /// `https://` address, and a quote that says something.
    pub fn check(&self) -> Result<(), String> {
        let document = self.document.trim();
        if !DOCUMENTS.contains(&document) && !document.starts_with("https://") {
            return Err(format!(
                "source document `{document}` is neither one of {} nor an https:// address",
                DOCUMENTS.join(", ")
            ));
        }
        if self.quote.split_whitespace().count() < 3 {
            return Err(format!(
                "the source quote from `{document}` must quote the sentence the scenario rests on"
            ));
        }
        if let Some(text) = document_text(document)
            && !quoted_in(&self.quote, text)
        {
            return Err(format!(
                "the source quote is not in the document `{document}` (quote it word for word; \
                 `...` marks words left out): \"{}\"",
                normalize_whitespace(&self.quote)
            ));
        }
        Ok(())
    }
}

/// One source or several, as written.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Sources {
    One(Box<Source>),
    Many(Vec<Source>),
}

impl Sources {
    /// The sources as a list.
    pub fn into_vec(self) -> Vec<Source> {
        match self {
            Sources::One(s) => vec![*s],
            Sources::Many(v) => v,
        }
    }
}

/// Collapses runs of whitespace to one space, so a quote folded over lines in YAML compares
/// equal to the document's sentence folded differently.
pub fn normalize_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(document: &str, quote: &str) -> Source {
        Source {
            document: document.into(),
            section: None,
            quote: quote.into(),
            assumes: None,
        }
    }

    #[test]
    fn known_documents_and_addresses_are_accepted() {
        assert!(
            source("safe-mcp-suite", "Every move is undoable")
                .check()
                .is_ok()
        );
        assert!(
            source(
                "https://modelcontextprotocol.io/specification/2025-11-25/basic",
                "Requests MUST include a string or integer ID."
            )
            .check()
            .is_ok()
        );
    }

    #[test]
    fn quotes_are_checked_against_the_document() {
        let real = "Every move is undoable, including a whole applied plan";
        assert!(source("safe-mcp-suite", real).check().is_ok());
        let folded = "Every move is\n  undoable, including ... applied plan";
        assert!(source("safe-mcp-suite", folded).check().is_ok());
        let made_up = "Every move is undoable, forever and always";
        assert!(source("safe-mcp-suite", made_up).check().is_err());
        let out_of_order = "applied plan ... Every move is undoable";
        assert!(source("safe-mcp-suite", out_of_order).check().is_err());
    }

    #[test]
    fn unknown_documents_and_empty_quotes_are_refused() {
        assert!(
            source("toolhub.txt", "Every move is undoable.")
                .check()
                .is_err()
        );
        assert!(source("http://example.com", "a b c").check().is_err());
        assert!(source("mcp-hub", "  ").check().is_err());
        assert!(source("mcp-hub", "yes").check().is_err());
    }

    #[test]
    fn strict_makes_should_fail_and_no_beyond_drops_beyond() {
        let default = LevelPolicy::default();
        assert!(default.warns(Level::Should));
        assert!(!default.warns(Level::Must) && !default.warns(Level::Beyond));
        assert!(default.runs(Level::Beyond));
        let strict = LevelPolicy {
            strict: true,
            beyond: false,
        };
        assert!(!strict.warns(Level::Should));
        assert!(strict.runs(Level::Must) && strict.runs(Level::Should));
        assert!(!strict.runs(Level::Beyond));
    }

    #[test]
    fn levels_read_as_written() {
        let levels: Vec<Level> =
            serde_json::from_str(r#"["must","should","beyond"]"#).expect("levels parse");
        assert_eq!(levels, vec![Level::Must, Level::Should, Level::Beyond]);
        assert!(serde_json::from_str::<Level>(r#""may""#).is_err());
    }
}
