//! The text explaining one failure or warning, shared by every report format (the human
//! report, JUnit's `<failure>` body, the Markdown summary's folded details), so they all say
//! the same thing: plain text, every section bounded, control characters escaped.

use super::{Failure, FailureKind, ScenarioResult, Status};
use crate::model::Level;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Note appended to the lines and headers of failures that the baseline expects.
pub(super) const BASELINE_NOTE: &str = "[expected by baseline]";

/// How much of each section of a failure block is shown.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Lines of the failure message.
    message_lines: usize,
    /// Lines of each pretty-printed JSON value, and of the diff.
    json_lines: usize,
    /// Lines of each value that take part in the diff (bounds the diff's cost).
    diff_input_lines: usize,
    /// Transcript lines (the last ones are kept).
    transcript_lines: usize,
    /// Server stderr lines (the last ones are kept).
    stderr_lines: usize,
    /// Characters per line before it is cut with an ellipsis marker.
    pub(super) line_chars: usize,
}

/// Bounds of the default report: enough to diagnose, small enough for any CI log.
pub(super) const DEFAULT_LIMITS: Limits = Limits {
    message_lines: 40,
    json_lines: 200,
    diff_input_lines: 2_000,
    transcript_lines: 20,
    stderr_lines: 20,
    line_chars: 400,
};

/// Bounds of `--verbose`: ten times more of everything, still bounded.
pub(super) const VERBOSE_LIMITS: Limits = Limits {
    message_lines: 400,
    json_lines: 2_000,
    diff_input_lines: 5_000,
    transcript_lines: 200,
    stderr_lines: 200,
    line_chars: 4_000,
};

/// The diff gives up looking for the smallest diff after this long (it still shows a correct,
/// if longer, diff), so a pathological pair of values cannot stall the report.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// Lines of unchanged context shown around each change of the diff.
const DIFF_CONTEXT: usize = 1;

/// The text explaining one failed scenario, shared by the human and JUnit reports so both say
/// the same thing. Plain text (no colour), every line ends with `\n`, control characters are
/// escaped and every section is bounded. For a scenario without a recorded failure it still
/// returns a header and a note rather than nothing.
pub fn failure_block(r: &ScenarioResult) -> String {
    render_failure_block(r, r.failure.as_ref(), &DEFAULT_LIMITS)
}

/// The text explaining one warning of a scenario (a `should` check that did not hold), in
/// the same shape as a failure block.
pub fn warning_block(r: &ScenarioResult, warning: &Failure) -> String {
    render_failure_block(r, Some(warning), &DEFAULT_LIMITS)
}

pub(super) fn render_failure_block(
    r: &ScenarioResult,
    f: Option<&Failure>,
    limits: &Limits,
) -> String {
    let max = limits.line_chars;
    let word = match f.map(|f| f.level) {
        Some(Level::Should) if r.status != Status::Failed => "WARNING",
        _ => "FAILED",
    };
    let mut out = format!("--- {word} {}", display_line(&r.name, max));
    if let Some(level) = f.map(|f| f.level).filter(|l| *l != Level::Must) {
        let _ = write!(out, " [{level}]");
    }
    if r.baseline_expected_failure && word == "FAILED" {
        out.push(' ');
        out.push_str(BASELINE_NOTE);
    }
    out.push('\n');
    let Some(f) = f else {
        out.push_str("  (no failure details were recorded)\n");
        return out;
    };

    let mut at = display_line(&r.file, max);
    if let Some(p) = f.position {
        let _ = write!(at, ":{}:{}", p.line, p.column);
    }
    // Step numbers are 1-based here, for people; the JSON report keeps the 0-based index.
    let label = f.step_label.as_deref().map(|l| display_line(l, max));
    match (f.step, label) {
        (Some(n), Some(l)) => {
            let _ = write!(at, " (step {}: {l})", n + 1);
        }
        (Some(n), None) => {
            let _ = write!(at, " (step {})", n + 1);
        }
        (None, Some(l)) => {
            let _ = write!(at, " ({l})");
        }
        (None, None) => {}
    }
    let _ = writeln!(out, "  at {at}");

    let mut message_lines = f.message.lines();
    let first = message_lines.next().unwrap_or("");
    let prefix = match f.kind {
        FailureKind::Error => "error: ",
        FailureKind::Assertion => "",
    };
    if !first.is_empty() || f.kind == FailureKind::Error {
        let _ = writeln!(out, "  {prefix}{}", display_line(first, max));
    }
    push_head(
        &mut out,
        message_lines,
        limits.message_lines.saturating_sub(1),
        max,
        "  ",
    );

    for source in &r.sources {
        let mut place = display_line(&source.document, max);
        if let Some(section) = &source.section {
            let _ = write!(place, ", {}", display_line(section, max));
        }
        let quote = display_line(
            &crate::model::level::normalize_whitespace(&source.quote),
            max,
        );
        let _ = writeln!(out, "  rule ({place}): \"{quote}\"");
    }

    let expected = f.expected.as_ref().map(pretty_json);
    let actual = f.actual.as_ref().map(pretty_json);
    for (title, text) in [("expected", &expected), ("actual", &actual)] {
        if let Some(text) = text {
            let _ = writeln!(out, "  {title}:");
            push_head(&mut out, text.lines(), limits.json_lines, max, "    ");
        }
    }
    if let (Some(e), Some(a)) = (&expected, &actual)
        && f.expected != f.actual
    {
        out.push_str("  diff (-expected +actual):\n");
        push_diff(&mut out, e, a, limits);
    }

    push_tail(
        &mut out,
        "last messages",
        &f.transcript,
        limits.transcript_lines,
        max,
    );
    push_tail(
        &mut out,
        "server stderr (last lines)",
        &f.stderr_tail,
        limits.stderr_lines,
        max,
    );
    out
}

fn pretty_json(v: &serde_json::Value) -> String {
    // Serializing a `Value` cannot fail (its map keys are strings); fall back to the compact
    // form anyway rather than lose the value.
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Appends at most `limit` lines of `lines`, each behind `indent`, then a note of how many
/// were left out.
fn push_head<'a>(
    out: &mut String,
    lines: impl Iterator<Item = &'a str>,
    limit: usize,
    max: usize,
    indent: &str,
) {
    let mut omitted = 0usize;
    for (i, line) in lines.enumerate() {
        if i < limit {
            let _ = writeln!(out, "{indent}{}", display_line(line, max));
        } else {
            omitted += 1;
        }
    }
    if omitted > 0 {
        let _ = writeln!(out, "{indent}… ({omitted} more lines not shown)");
    }
}

/// Appends a titled section showing the last `limit` entries (the most recent ones explain a
/// failure best), or `(none)`.
fn push_tail(out: &mut String, title: &str, entries: &[String], limit: usize, max: usize) {
    if entries.is_empty() {
        let _ = writeln!(out, "  {title}: (none)");
        return;
    }
    let _ = writeln!(out, "  {title}:");
    let skip = entries.len().saturating_sub(limit);
    if skip > 0 {
        let _ = writeln!(out, "    … ({skip} earlier lines not shown)");
    }
    for entry in &entries[skip..] {
        let _ = writeln!(out, "    {}", display_line(entry, max));
    }
}

/// Appends a compact line diff of two pretty-printed values: changed lines as `- `/`+ `, one
/// line of context around each change, `...` between distant changes.
fn push_diff(out: &mut String, expected: &str, actual: &str, limits: &Limits) {
    let max = limits.line_chars;
    let prepare = |text: &str| -> (Vec<String>, bool) {
        let mut lines: Vec<String> = text
            .lines()
            .take(limits.diff_input_lines + 1)
            .map(|l| display_line(l, max))
            .collect();
        let cut = lines.len() > limits.diff_input_lines;
        lines.truncate(limits.diff_input_lines);
        (lines, cut)
    };
    let (old, old_cut) = prepare(expected);
    let (new, new_cut) = prepare(actual);
    let ops = similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        &old,
        &new,
        Some(Instant::now() + DIFF_TIMEOUT),
    );
    let mut lines = Vec::new();
    for (i, group) in similar::group_diff_ops(ops, DIFF_CONTEXT)
        .iter()
        .enumerate()
    {
        if i > 0 {
            lines.push("    ...".to_owned());
        }
        for op in group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            match tag {
                similar::DiffTag::Equal => {
                    lines.extend(old[old_range].iter().map(|l| format!("    {l}")));
                }
                similar::DiffTag::Delete | similar::DiffTag::Insert | similar::DiffTag::Replace => {
                    lines.extend(old[old_range].iter().map(|l| format!("  - {l}")));
                    lines.extend(new[new_range].iter().map(|l| format!("  + {l}")));
                }
            }
        }
    }
    if lines.is_empty() {
        // Same text, different values (or the difference lies past the compared lines).
        lines.push("    (no difference in the compared lines)".to_owned());
    }
    let shown = lines.len().min(limits.json_lines);
    for line in &lines[..shown] {
        out.push_str(line);
        out.push('\n');
    }
    if lines.len() > shown {
        let _ = writeln!(
            out,
            "    … ({} more diff lines not shown)",
            lines.len() - shown
        );
    }
    if old_cut || new_cut {
        let _ = writeln!(
            out,
            "    … (only the first {} lines of each value were compared)",
            limits.diff_input_lines
        );
    }
}

/// True for characters that must not reach a terminal or a log raw: C0 and C1 controls
/// (escape sequences, carriage returns, NUL, DEL) except the tab, and the two noncharacters
/// XML cannot carry (so the JUnit report holds the very same text).
fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t') || matches!(c, '\u{fffe}' | '\u{ffff}')
}

/// Renders untrusted text as one display line: control characters (newlines included) become
/// `\u{..}` escapes, and a line longer than `max` characters is cut with a `…` marker saying
/// how much was left out.
pub(super) fn display_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max + 32));
    let mut shown = 0usize;
    for (i, c) in s.char_indices() {
        if shown >= max {
            let rest = s[i..].chars().count();
            let _ = write!(out, "… [{rest} more chars]");
            break;
        }
        if needs_escape(c) {
            let before = out.len();
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            shown += out.len() - before;
        } else {
            out.push(c);
            shown += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_line_escapes_controls_and_cuts_long_lines() {
        assert_eq!(
            display_line("a\u{1b}[31mb\n\tc", 100),
            "a\\u{1b}[31mb\\u{a}\tc"
        );
        assert_eq!(
            display_line("\u{0}\u{7f}\u{9b}", 100),
            "\\u{0}\\u{7f}\\u{9b}"
        );
        let long = "é".repeat(1000);
        let cut = display_line(&long, 400);
        assert!(cut.starts_with(&"é".repeat(400)));
        assert!(cut.ends_with("… [600 more chars]"));
    }
}
