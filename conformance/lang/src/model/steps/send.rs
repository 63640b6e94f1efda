//! `send`: write raw text to the server's stdin, for malformed and out-of-order input.

use super::{Build, Modifiers, StepKindInfo, label};

/// The descriptor of `send`.
pub const INFO: StepKindInfo = StepKindInfo {
    name: "send",
    doc: "Write this text to the server's stdin byte for byte, then a newline unless `newline: false`.",
    observes: false,
    modifiers: &["newline"],
};

/// What `send:` holds: the text.
pub type Raw = String;

/// A `send` step.
#[derive(Debug, Clone)]
pub struct Send {
    /// The text, written byte for byte.
    pub text: String,
    /// Whether a newline follows it.
    pub newline: bool,
}

pub(super) fn build(text: Raw, m: &mut Modifiers, _: &mut dyn Build) -> Option<(Send, String)> {
    let label = label(&INFO, &shorten(&text));
    let newline = m.newline.unwrap_or(true);
    Some((Send { text, newline }, label))
}

/// The first 40 characters of `text`, for a label.
fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}
