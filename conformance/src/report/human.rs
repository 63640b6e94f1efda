//! The human report: one line per scenario as it finishes, then a block per failure, baseline
//! notes and a closing totals line.
//!
//! Everything a server sends is untrusted text, so every section is bounded (a huge response
//! cannot flood a CI log) and control characters are shown as `\u{..}` escapes (a server cannot
//! recolour or rewrite the reader's terminal). The failure block is built by
//! [`failure_block`] alone, so the JUnit report carries exactly the same text.

use super::{Failure, FailureKind, RunReport, ScenarioResult, Status, Summary};
use crate::model::Level;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// Width of the status column (`ok`, `FAILED`, `skipped`), so names line up.
const STATUS_WIDTH: usize = 8;

/// Note appended to the lines and headers of failures that the baseline expects.
const BASELINE_NOTE: &str = "[expected by baseline]";

/// How much of each section of a failure block is shown.
#[derive(Debug, Clone, Copy)]
struct Limits {
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
    line_chars: usize,
}

/// Bounds of the default report: enough to diagnose, small enough for any CI log.
const DEFAULT_LIMITS: Limits = Limits {
    message_lines: 40,
    json_lines: 200,
    diff_input_lines: 2_000,
    transcript_lines: 20,
    stderr_lines: 20,
    line_chars: 400,
};

/// Bounds of `--verbose`: ten times more of everything, still bounded.
const VERBOSE_LIMITS: Limits = Limits {
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

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// Writes the human report to any [`Write`], so the runner can stream it to stdout and tests
/// can capture it in a `Vec<u8>`.
pub struct HumanReporter<W: Write> {
    out: W,
    color: bool,
    verbose: bool,
    name_width: usize,
}

impl<W: Write> HumanReporter<W> {
    /// Creates a reporter. `color` adds ANSI colours to status words and headers (never to the
    /// closing totals line); `verbose` raises the bounds of the failure blocks tenfold.
    pub fn new(out: W, color: bool, verbose: bool) -> Self {
        HumanReporter {
            out,
            color,
            verbose,
            name_width: 0,
        }
    }

    /// Pads scenario names to `width` characters so the durations line up too. Lines are
    /// printed as scenarios finish, so the reporter cannot know the longest name itself; a
    /// runner that knows every name up front passes the longest length here.
    #[must_use]
    pub fn with_name_width(mut self, width: usize) -> Self {
        self.name_width = width;
        self
    }

    /// Widens the name column to at least `width` characters (the longest name of a run,
    /// known when it starts).
    pub fn widen_names(&mut self, width: usize) {
        self.name_width = self.name_width.max(width);
    }

    /// Gives the writer back, e.g. the captured bytes in a test.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn limits(&self) -> &'static Limits {
        if self.verbose {
            &VERBOSE_LIMITS
        } else {
            &DEFAULT_LIMITS
        }
    }

    fn paint(&self, text: &str, color: &str) -> String {
        if self.color {
            format!("{color}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }

    /// Prints one scenario's line as soon as it finishes, so a long run shows progress even
    /// when nobody watches a terminal (CI logs):
    /// `ok      <name>  (12 ms)`, `FAILED  <name>  (1.2 s)` or `skipped <name>: <reason>`.
    ///
    /// # Errors
    /// Any error of the underlying writer (e.g. a closed pipe).
    pub fn scenario_finished(&mut self, r: &ScenarioResult) -> io::Result<()> {
        let limits = self.limits();
        let name = display_line(&r.name, limits.line_chars);
        let (word, color) = match r.status {
            Status::Passed if !r.warnings.is_empty() => ("warning", YELLOW),
            Status::Passed => ("ok", GREEN),
            Status::Failed => ("FAILED", RED),
            Status::Skipped => ("skipped", YELLOW),
        };
        let pad = " ".repeat(STATUS_WIDTH.saturating_sub(word.len()).max(1));
        let mut line = format!("{}{pad}", self.paint(word, color));
        match r.status {
            Status::Skipped => {
                line.push_str(&name);
                if let Some(reason) = &r.skip_reason {
                    line.push_str(": ");
                    line.push_str(&display_line(reason, limits.line_chars));
                }
            }
            Status::Passed | Status::Failed => {
                let width = self.name_width;
                let _ = write!(line, "{name:<width$}  ({})", format_duration(r.duration));
                if let Some(f) = r.failure.as_ref().filter(|f| f.level != Level::Must) {
                    let _ = write!(line, "  [{}]", f.level);
                }
                if !r.warnings.is_empty() {
                    let n = r.warnings.len();
                    let plural = if n == 1 { "" } else { "s" };
                    let _ = write!(line, "  [{n} warning{plural}]");
                }
                if r.status == Status::Failed && r.baseline_expected_failure {
                    line.push_str("  ");
                    line.push_str(BASELINE_NOTE);
                }
            }
        }
        line.push('\n');
        self.out.write_all(line.as_bytes())?;
        self.out.flush()
    }

    /// Prints the end of the report: a failure block per failed scenario, the baseline notes,
    /// and last, alone on its line and without colour, `N passed, N failed, N skipped`, the
    /// exact shape CI tools parse.
    ///
    /// # Errors
    /// Any error of the underlying writer (e.g. a closed pipe).
    pub fn finish(&mut self, report: &RunReport) -> io::Result<()> {
        let limits = self.limits();
        let failed = |level: Level| {
            report.scenarios.iter().filter(move |r| {
                r.status == Status::Failed && r.failure.as_ref().map(|f| f.level) == Some(level)
            })
        };
        for r in report.scenarios.iter().filter(|r| {
            r.status == Status::Failed
                && r.failure.as_ref().is_none_or(|f| f.level != Level::Beyond)
        }) {
            self.write_block(&render_failure_block(r, r.failure.as_ref(), limits), RED)?;
        }
        let beyond: Vec<&ScenarioResult> = report
            .scenarios
            .iter()
            .filter(|r| {
                r.level == Level::Beyond
                    || r.failure.as_ref().map(|f| f.level) == Some(Level::Beyond)
            })
            .collect();
        if !beyond.is_empty() {
            write!(
                self.out,
                "\n{}\n",
                self.paint(
                    "== Beyond the documents: guarantees stronger than the documents require \
                     (the reference makes them; --no-beyond leaves them out)",
                    YELLOW
                )
            )?;
            for r in &beyond {
                let word = match r.status {
                    Status::Passed => "ok",
                    Status::Failed => "FAILED",
                    Status::Skipped => "skipped",
                };
                writeln!(
                    self.out,
                    "{word:<STATUS_WIDTH$}{}",
                    display_line(&r.name, limits.line_chars)
                )?;
            }
            for r in failed(Level::Beyond) {
                self.write_block(&render_failure_block(r, r.failure.as_ref(), limits), RED)?;
            }
        }
        let warned: Vec<&ScenarioResult> = report
            .scenarios
            .iter()
            .filter(|r| !r.warnings.is_empty())
            .collect();
        if !warned.is_empty() {
            write!(
                self.out,
                "\n{}\n",
                self.paint(
                    "== Warnings: recommendations (level should) not met; --strict makes them fail",
                    YELLOW
                )
            )?;
            for r in warned {
                for w in &r.warnings {
                    self.write_block(&render_failure_block(r, Some(w), limits), YELLOW)?;
                }
            }
        }

        let mut notes = Vec::new();
        for r in &report.scenarios {
            if r.status == Status::Failed && r.baseline_expected_failure {
                notes.push(format!(
                    "expected failure (baseline): {}",
                    display_line(&r.name, limits.line_chars)
                ));
            }
        }
        for name in &report.stale_baseline {
            notes.push(format!(
                "{}: {}",
                self.paint("stale baseline entry (now passes)", RED),
                display_line(name, limits.line_chars)
            ));
        }
        for name in &report.unknown_baseline {
            notes.push(format!(
                "{} unknown baseline entry (no scenario of this run has that name): {}",
                self.paint("warning:", YELLOW),
                display_line(name, limits.line_chars)
            ));
        }
        if !notes.is_empty() {
            writeln!(self.out)?;
            for note in notes {
                writeln!(self.out, "{note}")?;
            }
        }

        let s = report.summary();
        write!(self.out, "\n{}\n", summary_line(&s))?;
        self.out.flush()
    }

    /// Writes one failure or warning block, its header line coloured.
    fn write_block(&mut self, block: &str, color: &str) -> io::Result<()> {
        let (header, rest) = block.split_once('\n').unwrap_or((block, ""));
        let header = self.paint(header, color);
        write!(self.out, "\n{header}\n{rest}")
    }
}

/// The closing line CI tools parse: `N passed, N failed, N skipped`, then `, N warnings`
/// when any `should` check did not hold (the first three stay exactly as they always were).
pub fn summary_line(s: &Summary) -> String {
    let mut line = format!(
        "{} passed, {} failed, {} skipped",
        s.passed, s.failed, s.skipped
    );
    if s.warnings > 0 {
        let _ = write!(line, ", {} warnings", s.warnings);
    }
    line
}

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

fn render_failure_block(r: &ScenarioResult, f: Option<&Failure>, limits: &Limits) -> String {
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

/// `12 ms` under a second, `1.2 s` from there on: precise where it matters, short always.
pub(super) fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        format!("{ms} ms")
    } else {
        let tenths = ms / 100;
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
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

    #[test]
    fn durations() {
        assert_eq!(format_duration(Duration::from_micros(300)), "0 ms");
        assert_eq!(format_duration(Duration::from_millis(12)), "12 ms");
        assert_eq!(format_duration(Duration::from_millis(999)), "999 ms");
        assert_eq!(format_duration(Duration::from_millis(1_234)), "1.2 s");
        assert_eq!(format_duration(Duration::from_secs(75)), "75.0 s");
    }
}
