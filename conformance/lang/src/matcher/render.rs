//! Human-readable explanation of a [`Mismatch`] for failure reports.

use super::Mismatch;
use serde_json::Value;
use similar::TextDiff;

/// Lines of unchanged context around each hunk: enough to locate a change inside an object.
const CONTEXT: usize = 3;

/// See [`super::explain()`].
pub(super) fn explain(m: &Mismatch) -> String {
    let mut out = format!("mismatch at {}\nreason: {}\n", m.path, m.reason);
    let expected = pretty(&m.expected);
    let (actual, actual_header) = match &m.actual {
        Some(v) => (pretty(v), "actual"),
        None => (String::new(), "actual (key is missing)"),
    };
    if expected == actual {
        // Operators such as `$not` can fail on a value that prints like the pattern.
        out.push_str("expected and actual print the same; see the reason above:\n");
        out.push_str(&expected);
    } else {
        let diff = TextDiff::from_lines(&expected, &actual);
        let unified = diff
            .unified_diff()
            .context_radius(CONTEXT)
            .header("expected", actual_header)
            .to_string();
        out.push_str(&unified);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// Pretty JSON with a final newline, so that the diff needs no "no newline at end" markers.
fn pretty(v: &Value) -> String {
    format!("{v:#}\n")
}
